// A source fed through the reference's test control (/_reference/sources), for tests that drive
// an adapter in process against the reference, without the kit's source database (a run of the
// CLI goes through that database). JavaScript, so adapter modules could import it too.

/** createSource + writeRows over the reference's test control, through the adapter context's request(). */
export function testControlSource(ctx) {
  return {
    async createSource(name, key, columns) {
      const r = await ctx.request('POST', '/_reference/sources', { name, key, columns });
      if (r.status !== 200) throw new Error(`creating a source answered ${r.status}`);
      return { id: r.json.data.id };
    },
    async writeRows(id, rows) {
      const r = await ctx.request('PUT', `/_reference/sources/${encodeURIComponent(id)}/rows`, { rows });
      if (r.status !== 200) throw new Error(`writing rows answered ${r.status}`);
    },
  };
}
