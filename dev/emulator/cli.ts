/**
 * `npm run emulator` (tsx dev/emulator/cli.ts [options]): starts the emulator with the demo data,
 * prints its URL, the demo API keys and Agents, and stays up until Ctrl-C.
 *
 * Options: --port N  --seed N  --latency MS  --run-duration MS  --run-outcome success|failed|never
 *          --fault-rate 0..1  --fault-kinds 500,503,reset  --list-order newest-first|oldest-first|random
 *          --runs-shape nested|flat  --prompt-failure-rate 0..1  --rate-limit N  --max-file-size BYTES
 *          --web-url URL  --quiet (no request lines)
 */
import { parseArgs } from 'node:util';
import { DEMO_USERS, startEmulator } from './index';
import type { EmulatorOptions, FaultKind, ListOrder, RunOutcome, RunsListShape } from './types';

function num(value: string | undefined, name: string): number | undefined {
	if (value === undefined) return undefined;
	const n = Number(value);
	if (!Number.isFinite(n)) throw new Error(`--${name} needs a number, got "${value}"`);
	return n;
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string', default: '8787' },
			seed: { type: 'string' },
			latency: { type: 'string' },
			'run-duration': { type: 'string' },
			'run-outcome': { type: 'string' },
			'fault-rate': { type: 'string' },
			'fault-kinds': { type: 'string' },
			'list-order': { type: 'string' },
			'runs-shape': { type: 'string' },
			'prompt-failure-rate': { type: 'string' },
			'rate-limit': { type: 'string' },
			'max-file-size': { type: 'string' },
			'web-url': { type: 'string' },
			quiet: { type: 'boolean', default: false },
			help: { type: 'boolean', short: 'h', default: false },
		},
	});
	if (values.help) {
		console.log(
			'Usage: tsx dev/emulator/cli.ts [--port 8787] [--seed 42] [--latency 0] [--run-duration 3000] ...',
		);
		return;
	}
	const options: Partial<EmulatorOptions> = { port: num(values.port, 'port') ?? 8787 };
	const set = <K extends keyof EmulatorOptions>(
		key: K,
		value: EmulatorOptions[K] | undefined,
	): void => {
		if (value !== undefined) options[key] = value;
	};
	set('seed', num(values.seed, 'seed'));
	set('latencyMs', num(values.latency, 'latency'));
	set('runDurationMs', num(values['run-duration'], 'run-duration'));
	set('runOutcome', values['run-outcome'] as RunOutcome | undefined);
	set('faultRate', num(values['fault-rate'], 'fault-rate'));
	set(
		'faultKinds',
		values['fault-kinds']?.split(',').map((k) => k.trim()) as FaultKind[] | undefined,
	);
	set('listOrder', values['list-order'] as ListOrder | undefined);
	set('runsListShape', values['runs-shape'] as RunsListShape | undefined);
	set('promptFailureRate', num(values['prompt-failure-rate'], 'prompt-failure-rate'));
	set('rateLimitPerMinute', num(values['rate-limit'], 'rate-limit'));
	set('maxFileSize', num(values['max-file-size'], 'max-file-size'));
	set('webUrl', values['web-url']);

	const emu = await startEmulator(options);
	const lines: string[] = [];
	lines.push('Document-Extraction Agents emulator');
	lines.push(`  Base URL (credential): ${emu.url}`);
	lines.push(`  API:                   ${emu.apiUrl}`);
	lines.push('');
	lines.push('Demo API keys:');
	for (const [id, key] of Object.entries(emu.keys)) {
		const user = DEMO_USERS[id as keyof typeof DEMO_USERS];
		const note =
			id === 'carol'
				? ' (EXPIRED: answers 401)'
				: user.billing === 'pages'
					? ', page-based billing'
					: '';
		lines.push(
			`  ${id.padEnd(6)} ${key}   ${user.email}, ${user.plan} plan, workspaces ${user.workspaces.join(', ')}${note}`,
		);
	}
	lines.push('');
	lines.push('Demo Agents:');
	for (const agent of emu.state.agents.values()) {
		const owners = Object.values(DEMO_USERS)
			.filter((u) => u.workspaces.includes(agent.workspaceId))
			.map((u) => u.id)
			.join(', ');
		lines.push(
			`  #${agent.id} ${agent.name} (workspace ${agent.workspaceId}, visible to ${owners || 'nobody'})`,
		);
		lines.push(`      Prompts:   ${agent.prompts.map((p) => `${p.name} [${p.id}]`).join(', ')}`);
		if (agent.templates.length)
			lines.push(
				`      Templates: ${agent.templates.map((t) => `${t.filename} [${t.id}]`).join(', ')}`,
			);
	}
	lines.push('');
	lines.push('Try:');
	lines.push(`  curl -H "Authorization: Bearer ${emu.keys.alice}" ${emu.apiUrl}/agents`);
	lines.push(
		`  curl -H "Authorization: Bearer ${emu.keys.alice}" -F files=@invoice.pdf ${emu.apiUrl}/agents/1/runs`,
	);
	lines.push('');
	lines.push('Ctrl-C to stop.');
	console.log(lines.join('\n'));

	if (!values.quiet) {
		let printed = 0;
		setInterval(() => {
			for (const e of emu.requestsSince(printed)) {
				if (e.status === 0 && !e.fault) break; // still in flight: printed next time
				console.log(
					`${new Date(e.startedAt).toISOString()} ${e.method} ${e.path} -> ${e.status}${e.fault ? ` [fault ${e.fault}]` : ''}${e.user ? ` (${e.user})` : ''}`,
				);
				printed = e.seq;
			}
		}, 250);
	}

	const shutdown = (): void => {
		console.log('\nStopping...');
		void emu.stop().then(() => process.exit(0));
	};
	process.on('SIGINT', shutdown);
	process.on('SIGTERM', shutdown);
}

main().catch((err) => {
	console.error(err instanceof Error ? err.message : err);
	process.exit(1);
});
