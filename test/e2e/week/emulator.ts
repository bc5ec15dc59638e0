/**
 * The emulator's side of the week: each Run is shaped from the names of the files it holds, as
 * test/node/fixtures.ts shapeRunsByFileName does for one file, here for Runs of several files.
 * The Agent answers each Prompt once per Run, from whichever file can answer it:
 * - an invoice or a delivery note answers every Prompt;
 * - a partly readable document answers all but its `failedPrompts`;
 * - an unreadable scan or a logo answers none.
 * A Run no file of which answers anything ends `failed`; otherwise it ends `success`, with the
 * Prompts no file answered failed (what a partly readable document gives). So an unreadable scan
 * sent in one Run with an invoice disappears into the invoice's values, as on the real service.
 */
import type { Emulator } from '../../../dev/emulator';
import type { InjectedFault } from '../../../dev/emulator/types';
import { INVOICE_PROMPTS, type Week } from './generate';

export interface RunFate {
	failed: boolean;
	failedPrompts: string[];
}

export function fateOfRun(week: Week, fileNames: string[]): RunFate {
	const answered = new Set<string>();
	for (const name of fileNames) {
		const file = week.files.get(name);
		// A file the week does not know (not one of its documents) reads as an invoice; a logo, as
		// an image, reads as nothing.
		const kind = file?.kind ?? (/\.(png|jpe?g|gif)$/i.test(name) ? 'logo' : 'invoice');
		if (kind === 'invoice' || kind === 'deliveryNote')
			for (const prompt of INVOICE_PROMPTS) answered.add(prompt);
		else if (kind === 'partlyReadable')
			for (const prompt of INVOICE_PROMPTS)
				if (!file?.failedPrompts?.includes(prompt)) answered.add(prompt);
	}
	return {
		failed: answered.size === 0,
		failedPrompts: INVOICE_PROMPTS.filter((prompt) => !answered.has(prompt)),
	};
}

/** From now on, every Run made through the API gets the fate its files give it. */
export function shapeWeekRuns(emu: Emulator, week: Week): void {
	const known = new Set(emu.state.runs.keys());
	emu.afterRequest(
		{ method: 'POST', path: /\/agents\/\d+\/runs$/ },
		() => {
			for (const run of emu.state.runs.values()) {
				if (known.has(run.runId)) continue;
				known.add(run.runId);
				const fate = fateOfRun(
					week,
					run.files.map((file) => file.name),
				);
				if (fate.failed) emu.finishRun(run.agentId, run.runId, 'failed');
				else if (fate.failedPrompts.length > 0) run.failingPrompts = fate.failedPrompts;
			}
		},
		Number.MAX_SAFE_INTEGER,
	);
}

/**
 * The week's outage: the next three creation requests answer 503 — the first before the service
 * saw it, the second after the Run was made (the client cannot tell the two apart), the third
 * before again.
 */
export const OUTAGE: InjectedFault[] = [
	{ match: { method: 'POST', path: /\/agents\/\d+\/runs$/ }, kind: '503', timing: 'before' },
	{ match: { method: 'POST', path: /\/agents\/\d+\/runs$/ }, kind: '503', timing: 'after' },
	{ match: { method: 'POST', path: /\/agents\/\d+\/runs$/ }, kind: '503', timing: 'before' },
];
