// The DuckDB half of scripts/bench: loads the CSV files written by the
// PostgreSQL run into an in-memory DuckDB (through the npm package
// @duckdb/node-api, installed by scripts/bench into a scratch folder) and
// times every duck1 / duck2 line of bench/suite.tsv with 1 / 2 threads:
// a warm-up (its result is the checksum), then RUNS runs (only one when the
// warm-up took longer than SLOW_MS, none when it took longer than ALONE_MS:
// the warm-up is then the one measurement), median of the timed runs, measured
// around each query in this process.  Prints one tab-separated line per
// configuration in the format of bench/run_pg.sh (no memory figures).
// usage: node run_duckdb.mjs  (environment: BENCH DATA DUCK_DIR RUNS SLOW_MS ALONE_MS SLICE)
import { createRequire } from 'module';
import { readFileSync } from 'fs';

const env = process.env;
const require = createRequire(env.DUCK_DIR + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

const tables = {
	bids: "{'bidtime': 'TIMESTAMP', 'price': 'DECIMAL(10,2)', 'item': 'INTEGER'}",
	rates: "{'currency': 'VARCHAR', 'rate': 'DECIMAL(12,6)', 'update_time': 'TIMESTAMP'}",
	orders: "{'order_id': 'INTEGER', 'currency': 'VARCHAR', 'amount': 'DECIMAL(12,2)', 'order_time': 'TIMESTAMP'}",
	sa: "{'dev': 'INTEGER', 't': 'TIMESTAMP', 'v': 'INTEGER'}",
	sb: "{'dev': 'INTEGER', 't': 'TIMESTAMP', 'v': 'INTEGER'}",
	bl: "{'row_time': 'TIMESTAMP', 'num': 'INTEGER', 'id': 'VARCHAR'}",
	br: "{'row_time': 'TIMESTAMP', 'num': 'INTEGER', 'id': 'VARCHAR'}",
};

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const ver = await con.runAndReadAll('SELECT version()');
console.error(`duckdb ${ver.getRows()[0][0]}`);
for (const [t, cols] of Object.entries(tables))
	await con.run(`CREATE TABLE ${t} AS SELECT * FROM read_csv('${env.DATA}/${t}.csv', header = false, columns = ${cols})`);

async function once(q) {
	const t0 = process.hrtime.bigint();
	const r = await con.runAndReadAll(q);
	const ms = Number(process.hrtime.bigint() - t0) / 1e6;
	return [ms, String(r.getRows()[0][0])];
}

const lines = readFileSync(`${env.BENCH}/suite.tsv`, 'utf8').split('\n');
for (const line of lines) {
	if (line === '' || line.startsWith('#')) continue;
	const [wl, cls, group, size, file] = line.split('\t');
	if (!cls.startsWith('duck')) continue;
	if (env.ONLY && !env.ONLY.split(',').some(w => wl === w || wl.startsWith(`${w}-`))) continue;
	const threads = Number(cls.slice(4));
	await con.run(`SET threads = ${threads}`);
	const q = readFileSync(`${env.BENCH}/queries/${file}`, 'utf8').replaceAll('{SLICE}', env.SLICE);
	const [warm, chk] = await once(q);
	const runs = warm > Number(env.ALONE_MS) ? 0 : warm > Number(env.SLOW_MS) ? 1 : Number(env.RUNS);
	const times = runs === 0 ? [warm] : [];
	let sum = chk;
	for (let i = 0; i < runs; i++) {
		const [ms, c] = await once(q);
		times.push(ms);
		sum = c;
	}
	times.sort((a, b) => a - b);
	const n = times.length;
	const median = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
	console.log([wl, cls, group, size, median.toFixed(3), runs, warm.toFixed(3),
		times.map(t => t.toFixed(1)).join(' '), sum, '', ''].join('\t'));
	console.error(`  ${wl.padEnd(12)} ${cls.padEnd(8)} ${median.toFixed(1).padStart(10)} ms  (${runs} run(s))  ${sum}`);
}
