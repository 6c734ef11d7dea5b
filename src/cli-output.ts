// A closed output (`dss-conformance run … | head -1`: the reader has gone, each write is EPIPE)
// ends the console output, not the run: the run goes on, writes every report and exits with its
// verdict's code. Without a handler the first failed write is an unhandled 'error' event, a stack
// trace and exit 1 before any report is written.

type Write = NodeJS.WriteStream['write'];

/** Once the stream fails, later writes are dropped (their callbacks still called, so no caller waits). */
export function tolerateClosedOutput(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', () => {
      stream.write = ((_chunk: unknown, encodingOrDone?: unknown, done?: unknown) => {
        const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
        if (typeof callback === 'function') process.nextTick(callback as () => void);
        return true;
      }) as Write;
    });
  }
}
