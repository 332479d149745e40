import { execFileSync } from 'node:child_process';
import { parquetReadObjects } from 'hyparquet';
const gitDir='/work/.mirror/SWE-bench+SWE-bench/repo';
for (const f of ['SWE-bench_Multilingual','SWE-bench_Verified','SWE-bench_Lite']) {
const buf = execFileSync('git', ['--git-dir', gitDir, 'show', `9fa561428aeef6406f534c8370c670f9ce51c630:data/${f}/test.parquet`], { maxBuffer: 1 << 30 });
const rows = await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset+buf.byteLength) });
const shapes = {};
for (const r of rows) { if (!r.eval_script) continue; const lines = r.eval_script.split('\n'); const i = lines.findIndex(l=>l.startsWith('git apply')); let j=i-1; const pre=[]; while (j>0 && !/^git (-c core.fileMode=false )?diff /.test(lines[j])) { pre.unshift(lines[j].replace(/[0-9a-f]{40}/,'BASE').replace(/ \S+/g,' X').slice(0,40)); j--; } const k=pre.join(' ;; '); (shapes[k] ??= []).push(r.instance_id); }
for (const [k,v] of Object.entries(shapes)) console.log(f, v.length, JSON.stringify(k), v.slice(0,3).join(' '));
}
