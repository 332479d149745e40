import { execFileSync } from 'node:child_process';
import { parquetReadObjects } from 'hyparquet';
const gitDir='/work/.mirror/SWE-bench+SWE-bench/repo';
const buf = execFileSync('git', ['--git-dir', gitDir, 'show', `9fa561428aeef6406f534c8370c670f9ce51c630:data/SWE-bench_Multilingual/test.parquet`], { maxBuffer: 1 << 30 });
const rows = await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset+buf.byteLength) });
const want = process.argv.slice(2);
for (const r of rows) if (want.some(w=>r.instance_id.startsWith(w))) { console.log('=====', r.instance_id, r.version, r.base_commit, r.created_at); console.log(r.eval_script); console.log('F2P', r.FAIL_TO_PASS.slice(0,400)); console.log('P2P', r.PASS_TO_PASS.slice(0,300)); console.log('image', r.image); }
