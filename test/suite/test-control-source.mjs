// A source fed through the reference's test control (/_reference/sources), added beside an
// adapter under test: until the suite writes its rows in the kit's own Postgres
// (createSourceConnection + createModel), runs against the reference read a source it keeps.
// JavaScript, so adapter modules the CLI loads can import it as well as the tests.

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
