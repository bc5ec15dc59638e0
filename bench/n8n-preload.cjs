'use strict';
/**
 * Preloaded into n8n by `npm run bench:n8n` (NODE_OPTIONS=--require; Node refuses --trace-gc
 * and --expose-gc there):
 * - SIGUSR2 runs a full garbage collection, so that the RSS baseline before an upload is not
 *   inflated by the garbage of the upload before it (freed during the next one, that made the
 *   growth come out negative);
 * - with BENCH_GC_LOG_DIR set (--cpu-prof), one JSON line per garbage collection — when (epoch
 *   ms), how long, which kind — in $BENCH_GC_LOG_DIR/gc-<pid>.jsonl, for bench/PROFILE-n8n.md.
 */
const fs = require('node:fs');
const path = require('node:path');
const { PerformanceObserver, constants, performance } = require('node:perf_hooks');
const v8 = require('node:v8');
const vm = require('node:vm');

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');
process.on('SIGUSR2', () => collectGarbage());

const dir = process.env.BENCH_GC_LOG_DIR;
if (dir) {
	const fd = fs.openSync(path.join(dir, `gc-${process.pid}.jsonl`), 'a');
	const kinds = {
		[constants.NODE_PERFORMANCE_GC_MAJOR]: 'major (mark-compact)',
		[constants.NODE_PERFORMANCE_GC_MINOR]: 'minor (scavenge)',
		[constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
		[constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
	};
	const observer = new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) {
			const line = {
				at: performance.timeOrigin + entry.startTime,
				ms: entry.duration,
				kind: kinds[entry.detail?.kind] ?? String(entry.detail?.kind),
			};
			fs.writeSync(fd, `${JSON.stringify(line)}\n`);
		}
	});
	observer.observe({ entryTypes: ['gc'] });
}
