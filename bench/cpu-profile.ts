/**
 * Where a process's time went during a window of a V8 CPU profile (`node --cpu-prof`, or the
 * inspector's Profiler domain): self time grouped by what the code does, plus the top
 * functions. `npm run bench:n8n -- --cpu-prof` uses it on the n8n process (window: from the
 * first to the last sample with an upload's own code on the stack) and on the bench process,
 * where the emulator receives (the same window: V8 and Node both stamp with CLOCK_MONOTONIC µs).
 */
import * as fs from 'node:fs';

export interface CpuProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}

export interface CpuProfile {
	nodes: CpuProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** A group of code, named for the report, and which frames belong to it (tried in order). */
export interface Group {
	name: string;
	matches: (url: string, functionName: string) => boolean;
}

const url = (re: RegExp) => (u: string) => re.test(u);

/** The groups of the n8n process during an upload. */
export const N8N_GROUPS: Group[] = [
	{ name: 'GC', matches: (_, f) => f === '(garbage collector)' },
	{ name: 'idle (waiting for the disk or the socket)', matches: (_, f) => f === '(idle)' },
	{ name: 'V8 / native, unattributed', matches: (_, f) => f === '(program)' },
	{ name: 'our multipart stream (multipart.js)', matches: url(/\/transport\/multipart\.js$/) },
	{
		name: "n8n's binary data reading (binary-data, fs streams)",
		matches: url(/binary-data|node:internal\/fs\/|node:fs$/),
	},
	{
		name: 'HTTP client (axios, follow-redirects, form-data)',
		matches: url(/\/(axios|follow-redirects|form-data|combined-stream|delayed-stream)\//),
	},
	{
		name: 'http / net / tls (Node core)',
		matches: url(
			/node:(_http_|http|https|net|tls|_tls|internal\/stream_base_commons|internal\/net)/,
		),
	},
	{ name: 'Node streams (Readable.from, pipe)', matches: url(/node:internal\/streams\//) },
	{ name: 'promises / microtasks', matches: url(/node:internal\/process\/task_queues/) },
];

/** The groups of the bench process, where the emulator receives the upload. */
export const EMULATOR_GROUPS: Group[] = [
	{ name: 'GC', matches: (_, f) => f === '(garbage collector)' },
	{ name: 'idle (waiting for the socket)', matches: (_, f) => f === '(idle)' },
	{ name: 'V8 / native, unattributed', matches: (_, f) => f === '(program)' },
	{
		name: 'multipart parsing (busboy, streamsearch)',
		matches: url(/\/(busboy|streamsearch)\//),
	},
	{ name: 'sha256 of each part (node:crypto)', matches: url(/node:internal\/crypto\//) },
	{ name: 'emulator code (dev/emulator)', matches: url(/\/dev\/emulator\//) },
	{
		name: 'http / net (Node core)',
		matches: url(/node:(_http_|http|net|internal\/stream_base_commons|internal\/net)/),
	},
	{ name: 'Node streams', matches: url(/node:internal\/streams\//) },
];

export interface Share {
	name: string;
	ms: number;
	percent: number;
}

export interface WindowSummary {
	/** The window, in the profile's clock (µs). */
	fromUs: number;
	toUs: number;
	ms: number;
	groups: Share[];
	/** The functions with the most self time (natives counted to their caller), "name (file:line)". */
	top: Share[];
}

/** Each sample's timestamp (µs, the profile's clock). */
function sampleTimes(profile: CpuProfile): number[] {
	const times: number[] = [];
	let t = profile.startTime;
	for (const delta of profile.timeDeltas) {
		t += delta;
		times.push(t);
	}
	return times;
}

function parents(profile: CpuProfile): Map<number, number> {
	const parentOf = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parentOf.set(child, node.id);
	return parentOf;
}

/**
 * The window from the first to the last sample whose stack has a frame matching `marker`
 * (e.g. the upload's own code), or undefined if none has.
 */
export function windowOf(
	profile: CpuProfile,
	marker: (url: string, functionName: string) => boolean,
	after = -Infinity,
): { fromUs: number; toUs: number } | undefined {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parentOf = parents(profile);
	const marked = new Map<number, boolean>();
	const isMarked = (id: number): boolean => {
		const known = marked.get(id);
		if (known !== undefined) return known;
		const node = byId.get(id)!;
		const parent = parentOf.get(id);
		const result =
			marker(node.callFrame.url, node.callFrame.functionName) ||
			(parent !== undefined && isMarked(parent));
		marked.set(id, result);
		return result;
	};
	const times = sampleTimes(profile);
	let fromUs: number | undefined;
	let toUs: number | undefined;
	profile.samples.forEach((id, i) => {
		if (times[i] < after || !isMarked(id)) return;
		fromUs ??= times[i];
		toUs = times[i];
	});
	return fromUs === undefined || toUs === undefined ? undefined : { fromUs, toUs };
}

/**
 * Self time of the samples in [fromUs, toUs], by group. A native frame without a file (a
 * socket write, a buffer copy) counts to the nearest caller that has one.
 */
export function summarize(
	profile: CpuProfile,
	groups: Group[],
	fromUs: number,
	toUs: number,
	topCount = 15,
): WindowSummary {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parentOf = parents(profile);
	const attributed = new Map<number, CpuProfileNode>();
	const frameOf = (id: number): CpuProfileNode => {
		const known = attributed.get(id);
		if (known) return known;
		const node = byId.get(id)!;
		const { url: u, functionName: f } = node.callFrame;
		const parent = parentOf.get(id);
		const result = u === '' && !f.startsWith('(') && parent !== undefined ? frameOf(parent) : node;
		attributed.set(id, result);
		return result;
	};
	const times = sampleTimes(profile);
	const groupUs = new Map<string, number>();
	const functionUs = new Map<string, number>();
	let totalUs = 0;
	for (let i = 0; i < profile.samples.length; i++) {
		if (times[i] < fromUs || times[i] > toUs) continue;
		// A sample stands for the time until the next one.
		const us = (times[i + 1] ?? times[i]) - times[i];
		totalUs += us;
		const frame = frameOf(profile.samples[i]);
		const { url: u, functionName: f, lineNumber } = frame.callFrame;
		const group = groups.find((g) => g.matches(u, f))?.name ?? 'other';
		groupUs.set(group, (groupUs.get(group) ?? 0) + us);
		const file = u
			? ` (${u.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\//, '')}:${lineNumber + 1})`
			: '';
		const key = `${f || '(anonymous)'}${file}`;
		functionUs.set(key, (functionUs.get(key) ?? 0) + us);
	}
	const shares = (m: Map<string, number>) =>
		[...m.entries()]
			.sort((a, b) => b[1] - a[1])
			.map(([name, us]) => ({
				name,
				ms: us / 1000,
				percent: totalUs > 0 ? (100 * us) / totalUs : 0,
			}));
	return {
		fromUs,
		toUs,
		ms: (toUs - fromUs) / 1000,
		groups: shares(groupUs),
		top: shares(functionUs).slice(0, topCount),
	};
}

export function readProfile(file: string): CpuProfile {
	return JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
}

/** Markdown lines: the groups, then the top functions. */
export function renderSummary(title: string, summary: WindowSummary): string[] {
	const row = (s: Share) => `| ${s.name} | ${s.ms.toFixed(0)} | ${s.percent.toFixed(1)} % |`;
	return [
		`**${title}** (${(summary.ms / 1000).toFixed(1)} s of samples)`,
		'',
		'| Group (self time) | ms | Share |',
		'| --- | --- | --- |',
		...summary.groups.map(row),
		'',
		'| Top functions (self time) | ms | Share |',
		'| --- | --- | --- |',
		...summary.top.map(row),
		'',
	];
}
