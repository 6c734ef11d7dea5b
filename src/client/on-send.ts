import type { Dispatcher } from 'undici';

/**
 * The dispatcher, calling onSend when undici is about to write the request on a socket: after
 * any connection set-up, which the moment request() is called is not. The rate limiter counts
 * from there, as that is when the target sees the request.
 */
export function onSend(dispatcher: Dispatcher, onSend: () => void): Dispatcher {
  return dispatcher.compose((dispatch) => (opts, handler) => dispatch(opts, notifying(handler, onSend)));
}

function notifying(handler: Dispatcher.DispatchHandler, onSend: () => void): Dispatcher.DispatchHandler {
  return new Proxy(handler, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      // Bound to the real handler, whose private fields a proxy receiver could not reach.
      if (prop !== 'onRequestStart') return method.bind(target);
      return (...args: unknown[]) => {
        onSend();
        return method.apply(target, args);
      };
    },
  });
}
