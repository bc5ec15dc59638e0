/**
 * Soak: many Runs created through the action node while the emulator injects
 * random faults on every endpoint, and the trigger polling the same Agent throughout.
 *
 *   npm run soak                      1,000 Runs (test/reliability/soak-cli.ts)
 *   test/reliability/soak.test.ts     the same with 60 Runs, inside `npm test`
 *
 * The emulator's state is the judge. Every input item carries a unique User-Defined ID,
 * so a duplicate Run is visible as two Runs with the same ID. Then:
 *  - an item that succeeded has exactly one Run, the one it returned;
 *  - an item that failed has no Run, or one Run and an error that says the request was
 *    not repeated (so the user knows to check before running it again);
 *  - no ID has two Runs, and every Run of the Agent belongs to an item;
 *  - after the faults stop, the trigger has emitted every finished Run of the Agent
 *    exactly once: 0 duplicates, 0 missed.
 *
 * A second trigger watches All Agents under the hazards of docs/design/service-notes.md ("Trigger"): Agent
 * churn (the soak's Agent left out of every 5th GET /agents, new Agents made with Runs
 * during the soak), Runs deleted while the triggers page through the list (Runs both
 * triggers emitted, deleted from inside a list request, as a "trigger → process → delete"
 * workflow does), and Runs listed late (a share of new Runs appears in the list seconds
 * after its `created` time). It too must emit every finished Run of the soak's Agents once.
 *
 * Every `linksEvery`-th execution gives its files as links (Files → Links) to a local file host
 * that injects the link hazards (dev/links/host.ts): compressed answers, answers that change
 * between reads, single-use, slow, stalled and silent links, web pages, redirects, and links
 * into the service's own API. The judge adds: the key never reaches the file host, a Run made
 * from links holds exactly the bytes the links gave, and an item with a link that cannot give
 * its file the same way each time fails with a message naming the link and no Run.
 *
 * Then a third part in simulated time (soak-simulated.ts): the All Agents trigger polled a
 * simulated minute apart for hours, with Runs listed up to 30 minutes late, single reads
 * lagging the list, Agents whose Run list fails, and the counter-based skip on with a Run made
 * and another deleted on one Agent between two polls. 0 duplicates, 0 missed.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { startEmulator, type Emulator, type FaultKind, type RunRecord } from '../../dev/emulator';
import { mulberry32 } from '../../dev/emulator/random';
import { startLinkHost, type LinkHost } from '../../dev/links/host';
import { createPoller, executeNode, type HarnessInputItem, type Poller } from '../../dev/harness';
import { RETRY_LIMITS } from '../../nodes/ExtractionAgents/transport/retry';
import { newAgent, triggerParameters } from '../trigger/helpers';
import { uploadOnlyParameters, pdf } from './helpers';
import { sha256 } from '../node/fixtures';
import {
	formatSimulatedSoak,
	runSimulatedSoak,
	simulatedSoakViolations,
	type SimulatedSoakReport,
} from './soak-simulated';

export interface SoakOptions {
	/** Runs to ask for (input items in all). */
	runs: number;
	itemsPerExecution: number;
	filesPerRun: number;
	/** Fraction of requests (on every endpoint) that get a random fault. */
	faultRate: number;
	faultKinds: FaultKind[];
	/** Every n-th execution gives its files as links to the hazard file host (0: none). */
	linksEvery: number;
	/** Every n-th execution waits for its Runs to finish (Wait for Completion). */
	waitEvery: number;
	/** Options → Request Timeout of both nodes (short, so that stalls end quickly). */
	requestTimeoutSeconds: number;
	/** Pause between trigger polls (the polls run alongside the executions). */
	pollIntervalMs: number;
	/** Share of new Runs listed late, and how late (emulator knob lateListing). */
	lateListing: { rate: number; delayMs: number };
	/** Every n-th poll of the All Agents trigger, the soak's Agent is left out of GET /agents. */
	hideAgentEvery: number;
	/** Every n-th execution makes a new Agent with Runs (Agent churn). */
	newAgentEvery: number;
	/** Runs emitted by both triggers deleted from inside list requests, at most per poll. */
	deletesPerPoll: number;
	/** The simulated-time part (soak-simulated.ts): minutes of new Runs, and Agents watched. */
	simulatedMinutes: number;
	simulatedAgents: number;
	seed: number;
	log: (line: string) => void;
}

export const SOAK_FAULT_KINDS: FaultKind[] = [
	'429',
	'500',
	'502',
	'503',
	'504',
	'reset',
	'reset-mid-response',
	'truncated-json',
	'non-json',
	'stall',
];

export const DEFAULT_SOAK_OPTIONS: SoakOptions = {
	runs: 1000,
	itemsPerExecution: 5,
	filesPerRun: 3,
	faultRate: 0.1,
	faultKinds: SOAK_FAULT_KINDS,
	linksEvery: 3,
	waitEvery: 20,
	requestTimeoutSeconds: 1,
	pollIntervalMs: 100,
	lateListing: { rate: 0.2, delayMs: 1_500 },
	hideAgentEvery: 5,
	newAgentEvery: 10,
	deletesPerPoll: 2,
	simulatedMinutes: 180,
	simulatedAgents: 12,
	seed: 7,
	log: () => undefined,
};

export interface SoakReport {
	runsAskedFor: number;
	executions: number;
	/** Items whose Run exists exactly once and is the one the item returned. */
	createdOnce: number;
	/** Items that failed with no Run made. */
	failedWithoutRun: number;
	/** Items whose Run was made and ended failed: an item error from node version 1.3 on, with its Run. */
	failedRunReported: number;
	/** Items that failed although their Run was made; the error says to check first. */
	failedWithRunAndWarning: number;
	/** Items that failed with a Run made and no warning: must be 0. */
	failedWithRunSilently: number;
	/** User-Defined IDs with two or more Runs: must be 0. */
	duplicateRuns: number;
	/** Items with no output item, or a success item whose Run is not in the emulator: must be 0. */
	lostItems: number;
	/** Runs of the Agent that belong to no item: must be 0. */
	orphanRuns: number;
	/** Error messages of the failed items, counted. */
	errorMessages: Record<string, number>;
	/** Failed items whose message is not one of the clear ones the node gives: must be 0. */
	unclearErrors: string[];
	requests: number;
	faultsInjected: number;
	faultsByKind: Record<string, number>;
	trigger: {
		polls: number;
		failedPolls: number;
		/** Finished Runs of the Agent, all made during the soak. */
		finishedRuns: number;
		emitted: number;
		duplicates: number;
		missed: number;
		/** Emitted IDs that are not finished Runs of the Agent: must be 0. */
		unexpected: number;
		/** Clean polls needed after the faults stopped. */
		drainPolls: number;
		/** Why polls failed under the faults, counted. */
		pollErrors: Record<string, number>;
	};
	/** The All Agents trigger under Agent churn, deletes during polls and Runs listed late. */
	churn: {
		polls: number;
		failedPolls: number;
		/** Agents made during the soak, with Runs. */
		newAgents: number;
		/** Polls in which the soak's Agent was left out of GET /agents. */
		pollsWithAgentHidden: number;
		/** Runs deleted from inside a list request of a poll. */
		deletedDuringPolls: number;
		/** Runs the emulator listed late. */
		listedLate: number;
		/** Finished Runs of the soak's Agent and the new Agents (deleted ones included). */
		finishedRuns: number;
		emitted: number;
		duplicates: number;
		missed: number;
		unexpected: number;
		drainPolls: number;
	};
	/** Items whose files were given as links to the hazard file host. */
	links: {
		items: number;
		/** Links given, by kind of host behaviour. */
		byKind: Record<string, number>;
		/** Items with a link that cannot give its file the same way twice, or at all. */
		hazardousItems: number;
		/** Requests that reached the file host carrying Authorization: must be 0. */
		keySent: number;
		/** Runs made from links whose files are not the bytes the links gave: must be 0. */
		wrongBytes: number;
		/** Hazardous items that made a Run: must be 0. */
		hazardousWithRun: number;
	};
	/** The All Agents trigger in simulated time, under the hazards that take hours to show. */
	simulated: SimulatedSoakReport;
	seconds: number;
}

/** The messages the node gives when a request fails (the error's first line). */
const CLEAR_MESSAGES = [
	/^The Extraction Agents service failed \(\d{3}\)$/,
	/^The Extraction Agents service got too many requests from this API key and asked the node to slow down \(429\)$/,
	/^The connection to the Extraction Agents service was interrupted$/,
	/^The Extraction Agents service did not answer within \d+ s$/,
	/^The Extraction Agents service sent an answer the node cannot read$/,
	/^The Extraction Agents service sent an incomplete answer for the Run$/,
	/^Run \d+ did not finish within .+$/,
	// Files → Links: a link that cannot give its file is named (dev/links/host.ts's hazards).
	/^The link http:\/\/\S+ (answered|gives|did not|could not|stalled|ended early|ended before|sent|redirects|is an address)\b/,
	/^File ".+" at http:\/\/\S+ is /,
	/^The file at http:\/\/\S+ (is larger than the service accepts|is empty)/,
	/^The upload to the Extraction Agents service stalled: /,
	/^The connection to the Extraction Agents service broke during the upload, after /,
];
/** What the error says when the Run may exist: check before running the item again. */
const WARNS_TO_CHECK =
	/did not try again \(that could make it twice\)|may have been created|will finish on the service/;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The file host's kinds of link (dev/links/host.ts) and what they must give: `good` links a
 * Run with the bytes of the link's first answer (each link is read once: a link that would
 * misbehave on a second read, or whose file comes gzip-encoded, is good), `either` a Run
 * with those bytes or a failure naming the link (a byte a second against a 1 s Request
 * Timeout: cut when a pause reaches it), `fails` a failure naming the link and no Run.
 */
const LINK_KINDS: Record<string, 'good' | 'either' | 'fails'> = {
	file: 'good',
	chunked: 'good',
	disposition: 'good',
	'redirect-to-file': 'good',
	once: 'good',
	longer: 'good',
	gzip: 'good',
	grows: 'good',
	swapped: 'good',
	page: 'fails',
	trickle: 'either',
	stall: 'fails',
	silent: 'fails',
	'redirect-to-api': 'fails',
	api: 'fails',
};

/** Links whose host behaves: the rest are hazards. */
const PLAIN_LINK_KINDS = ['file', 'chunked', 'disposition', 'redirect-to-file'];

function linkFor(kind: string, n: number, linkHost: LinkHost, emulator: Emulator): string {
	const name = `soak-${n}.pdf`;
	if (kind === 'api') return `${emulator.url}/api/v1/client/api-keys?page_size=50`;
	if (kind === 'redirect-to-api') {
		const to = encodeURIComponent(`${emulator.url}/api/v1/client/agents`);
		return linkHost.link(`/redirect/1/${name}?to=${to}`);
	}
	if (kind === 'redirect-to-file') {
		return linkHost.link(
			`/redirect/2/${name}?to=${encodeURIComponent(linkHost.link(`/file/${n}/${name}`))}`,
		);
	}
	if (kind === 'disposition') {
		return linkHost.link(
			`/disposition/${encodeURIComponent(`attachment; filename="${name}"`)}/${n}`,
		);
	}
	return linkHost.link(`/${kind}/${n}/${name}`);
}

/** The path whose bytes a link of `kind` gives when it works. */
function servedPath(link: string): string {
	const url = new URL(link);
	const to = url.searchParams.get('to');
	return to && url.pathname.startsWith('/redirect/') ? new URL(to).pathname : url.pathname;
}

/** The Run IDs one poll emitted (outside jest: no `expect` here). */
function runIdsOf(result: INodeExecutionData[][] | null): number[] {
	return (result?.[0] ?? []).map((item) => Number(item.json.run_id));
}

function inputItems(
	first: number,
	count: number,
	filesPerRun: number,
	prefix: string,
): HarnessInputItem[] {
	return Array.from({ length: count }, (_, offset) => {
		const n = first + offset;
		const binary: NonNullable<HarnessInputItem['binary']> = {};
		for (let f = 0; f < filesPerRun; f++) {
			binary[`file_${f}`] = {
				data: pdf(`soak ${n} file ${f}`),
				fileName: `soak-${n}-${f}.pdf`,
				mimeType: 'application/pdf',
			};
		}
		return { json: { udid: `${prefix}-${n}` }, binary };
	});
}

interface ItemOutcome {
	udid: string;
	json?: IDataObject;
}

export async function runSoak(overrides: Partial<SoakOptions> = {}): Promise<SoakReport> {
	const options: SoakOptions = { ...DEFAULT_SOAK_OPTIONS, ...overrides };
	const { log } = options;
	const started = Date.now();
	const emulator = await startEmulator({
		logErrors: false,
		seed: options.seed,
		runDurationMs: 400,
		promptFailureRate: 0.05,
	});
	const linkHost = await startLinkHost();
	const savedBackoff = RETRY_LIMITS.baseBackoffMs;
	RETRY_LIMITS.baseBackoffMs = 5;
	try {
		const report = await soak(emulator, linkHost, options, started);
		log(`soak: the All Agents trigger for ${options.simulatedMinutes} simulated minutes…`);
		report.simulated = await runSimulatedSoak({
			minutes: options.simulatedMinutes,
			agents: options.simulatedAgents,
			seed: options.seed,
			faultRate: options.faultRate / 2,
		});
		report.seconds = Math.round((Date.now() - started) / 100) / 10;
		return report;
	} finally {
		RETRY_LIMITS.baseBackoffMs = savedBackoff;
		emulator.knobs.faultRate = 0;
		await emulator.stop();
		await linkHost.stop();
		log(`soak: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	}
}

async function soak(
	emulator: Emulator,
	linkHost: LinkHost,
	options: SoakOptions,
	started: number,
): Promise<SoakReport> {
	const { log } = options;
	const credentials = { apiKey: emulator.keys.alice, baseUrl: emulator.url };
	const requestOptions = { requestTimeout: options.requestTimeoutSeconds };
	const withRequestOptions = (parameters: INodeParameters): INodeParameters => ({
		...parameters,
		options: { ...(parameters.options as INodeParameters), ...requestOptions },
	});
	const agentId = await newAgent(emulator, `soak ${options.runs}`);
	const prefix = `soak-${options.seed}`;

	// The trigger is activated before the faults start (activation reads the Agent's Runs).
	const poller = createPoller({
		parameters: withRequestOptions(triggerParameters(agentId)),
		credentials,
	});
	if ((await poller.poll()) !== null) throw new Error('activation emitted something');
	const allAgents = createPoller({
		parameters: withRequestOptions(
			triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
		),
		credentials,
	});
	if ((await allAgents.poll()) !== null)
		throw new Error('activation (All Agents) emitted something');
	const firstSeq = emulator.lastSeq;
	const churn = new Churn(emulator, agentId, options);

	const emitted: number[] = [];
	const pollErrors: Record<string, number> = {};
	let failedPolls = 0;
	let stopPolling = false;
	const pollOnce = async (): Promise<void> => {
		try {
			emitted.push(...runIdsOf(await poller.poll()));
		} catch (error) {
			// the next poll emits what this one would have
			failedPolls++;
			const message = (error as Error).message;
			pollErrors[message] = (pollErrors[message] ?? 0) + 1;
		}
		await churn.pollAllAgents(allAgents, emitted);
	};
	const polling = (async () => {
		while (!stopPolling) {
			await pollOnce();
			await sleep(options.pollIntervalMs);
		}
	})();

	Object.assign(emulator.knobs, {
		faultRate: options.faultRate,
		faultKinds: options.faultKinds,
		faultTiming: 'random',
		lateListing: options.lateListing,
	});
	log(
		`soak: ${options.runs} Runs of ${options.filesPerRun} files, ${options.itemsPerExecution} items per execution; ` +
			`${Math.round(options.faultRate * 100)}% of requests get a fault (${options.faultKinds.join(', ')}), before or after the service acts`,
	);

	const outcomes: ItemOutcome[] = [];
	const linkRandom = mulberry32(options.seed + 1);
	// Plain links, and hosts that misbehave (drawn less often, whether they now give a Run or not).
	const GOOD_KINDS = PLAIN_LINK_KINDS;
	const OTHER_KINDS = Object.keys(LINK_KINDS).filter((kind) => !PLAIN_LINK_KINDS.includes(kind));
	const linkKinds: Record<string, number> = {};
	const linkItems = new Map<string, { links: string[]; kinds: string[] }>();
	let executions = 0;
	for (let first = 0; first < options.runs; first += options.itemsPerExecution) {
		const count = Math.min(options.itemsPerExecution, options.runs - first);
		const viaLinks = options.linksEvery > 0 && executions % options.linksEvery === 1;
		const items = inputItems(first, count, options.filesPerRun, prefix);
		if (viaLinks) {
			for (const [offset, item] of items.entries()) {
				const n = first + offset;
				const kinds = Array.from({ length: options.filesPerRun }, () =>
					linkRandom() < 0.6
						? GOOD_KINDS[Math.floor(linkRandom() * GOOD_KINDS.length)]
						: OTHER_KINDS[Math.floor(linkRandom() * OTHER_KINDS.length)],
				);
				const links = kinds.map((kind, f) => linkFor(kind, n * 10 + f, linkHost, emulator));
				for (const kind of kinds) linkKinds[kind] = (linkKinds[kind] ?? 0) + 1;
				delete item.binary;
				item.json = { ...item.json, links };
				linkItems.set(String(item.json.udid), { links, kinds });
			}
		}
		const wait = executions % options.waitEvery === options.waitEvery - 1;
		// Some Runs end failed, so that the trigger sees both statuses.
		emulator.knobs.runOutcome = executions % 7 === 3 ? 'failed' : 'success';
		// Runs of the execution under way are not deleted: it may still be waiting for them.
		churn.busyUserDefinedIds = new Set(items.map((item) => String(item.json?.udid)));
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials,
			continueOnFail: true,
			binaryMode: 'filesystem',
			timeoutMs: 300_000,
			parameters: uploadOnlyParameters(
				{
					...(viaLinks ? { binarySource: 'links', fileLinks: '={{ $json.links }}' } : {}),
					waitForCompletion: wait,
					additionalFields: { userDefinedId: '={{ $json.udid }}' },
					options: requestOptions,
				},
				agentId,
			),
			inputItems: items,
		});
		executions++;
		churn.busyUserDefinedIds = new Set();
		if (executions % options.newAgentEvery === 0) await churn.newAgentWithRuns();
		if (result.status !== 'success')
			throw new Error(`execution ${executions} ended ${result.status}: ${result.error?.message}`);
		const byItem = new Map<number, INodeExecutionData[]>();
		for (const item of result.items) {
			const paired = item.pairedItem as { item: number };
			byItem.set(paired.item, [...(byItem.get(paired.item) ?? []), item]);
		}
		items.forEach((input, index) => {
			const out = byItem.get(index) ?? [];
			outcomes.push({
				udid: String(input.json?.udid),
				json: out.length === 1 ? out[0].json : undefined,
			});
		});
		if (executions % 20 === 0) {
			log(
				`  ${first + count} items sent, ${emitted.length} Runs emitted by the trigger, ${failedPolls} polls failed so far`,
			);
		}
	}

	// Faults stop; the Runs finish; poll until every finished Run is emitted.
	emulator.knobs.faultRate = 0;
	emulator.knobs.lateListing = null;
	stopPolling = true;
	await polling;
	const faultEntries = emulator.requestsSince(firstSeq);
	const requests = faultEntries.length;
	const faultsByKind: Record<string, number> = {};
	for (const entry of faultEntries)
		if (entry.fault) faultsByKind[entry.fault] = (faultsByKind[entry.fault] ?? 0) + 1;

	const agentRuns = () => emulator.state.runsOfAgent(agentId);
	const isFinished = (runId: number) => emulator.getRun(agentId, runId)?.status !== 'running';
	for (let i = 0; i < 100 && !agentRuns().every((run) => isFinished(run.runId)); i++)
		await sleep(100);
	// Runs deleted during the soak had finished (both triggers had emitted them): they count.
	const finishedIds = [
		...agentRuns()
			.map((run) => run.runId)
			.filter(isFinished),
		...churn.deletedRunIds(),
	];
	const churnExpected = [...finishedIds, ...churn.newAgentRunIds()];
	let drainPolls = 0;
	const drained = () =>
		finishedIds.every((id) => emitted.includes(id)) &&
		churnExpected.every((id) => churn.emitted.includes(id));
	while (drainPolls < 50 && !drained()) {
		drainPolls++;
		await pollOnce();
		await sleep(options.pollIntervalMs); // Runs listed late appear a moment later
	}
	drainPolls++;
	await pollOnce(); // one more: nothing new may come

	// The judge: the emulator's Runs per User-Defined ID.
	const runsByUdid = new Map<string, number[]>();
	for (const run of [...agentRuns(), ...churn.deletedRuns()]) {
		const key = run.userDefinedId ?? '(none)';
		runsByUdid.set(key, [...(runsByUdid.get(key) ?? []), run.runId]);
	}
	const report: SoakReport = {
		runsAskedFor: options.runs,
		executions,
		createdOnce: 0,
		failedWithoutRun: 0,
		failedRunReported: 0,
		failedWithRunAndWarning: 0,
		failedWithRunSilently: 0,
		duplicateRuns: [...runsByUdid.values()].filter((ids) => ids.length > 1).length,
		lostItems: 0,
		orphanRuns: 0,
		errorMessages: {},
		unclearErrors: [],
		requests,
		faultsInjected: Object.values(faultsByKind).reduce((a, b) => a + b, 0),
		faultsByKind,
		trigger: {
			polls: poller.history.length - 1,
			failedPolls,
			finishedRuns: finishedIds.length,
			emitted: emitted.length,
			duplicates: emitted.length - new Set(emitted).size,
			missed: finishedIds.filter((id) => !emitted.includes(id)).length,
			unexpected: emitted.filter((id) => !finishedIds.includes(id)).length,
			drainPolls,
			pollErrors,
		},
		churn: {
			polls: allAgents.history.length - 1,
			failedPolls: churn.failedPolls,
			newAgents: churn.newAgents.length,
			pollsWithAgentHidden: churn.pollsWithAgentHidden,
			deletedDuringPolls: churn.deletedRunIds().length,
			listedLate: [...agentRuns(), ...churn.deletedRuns()].filter(
				(run) => run.listedMs !== undefined,
			).length,
			finishedRuns: churnExpected.length,
			emitted: churn.emitted.filter((id) => churnExpected.includes(id)).length,
			duplicates: churn.emitted.length - new Set(churn.emitted).size,
			missed: churnExpected.filter((id) => !churn.emitted.includes(id)).length,
			unexpected: churn.emitted.filter(
				(id) => !churnExpected.includes(id) && !churn.otherAgentsRun(id),
			).length,
			drainPolls,
		},
		links: {
			items: linkItems.size,
			byKind: linkKinds,
			hazardousItems: [...linkItems.values()].filter(({ kinds }) =>
				kinds.some((kind) => LINK_KINDS[kind] === 'fails'),
			).length,
			keySent: linkHost.requests.filter((request) => request.headers.authorization !== undefined)
				.length,
			wrongBytes: 0,
			hazardousWithRun: 0,
		},
		simulated: undefined as unknown as SimulatedSoakReport, // filled in by runSoak
		seconds: 0,
	};
	// Runs made from links: the bytes of each file are the ones its link gave.
	for (const entry of emulator.requestsSince(firstSeq)) {
		// A Run is made with a 200 (docs/service-notes.md).
		if (entry.method !== 'POST' || entry.status !== 200 || !entry.upload) continue;
		const given = linkItems.get(String(entry.upload.fields.user_defined_id));
		if (!given) continue;
		if (given.kinds.some((kind) => LINK_KINDS[kind] === 'fails')) report.links.hazardousWithRun++;
		const expected = given.links.map((link) =>
			link.startsWith(linkHost.url)
				? sha256(linkHost.servedOf(servedPath(link))[0] ?? linkHost.bytesOf(servedPath(link)))
				: '',
		);
		const sent = entry.upload.files.map((file) => file.sha256);
		if (JSON.stringify(sent) !== JSON.stringify(expected)) report.links.wrongBytes++;
	}
	const udids = new Set(outcomes.map((outcome) => outcome.udid));
	report.orphanRuns = [...runsByUdid.entries()]
		.filter(([udid]) => !udids.has(udid))
		.reduce((sum, [, ids]) => sum + ids.length, 0);
	for (const outcome of outcomes) {
		const runs = runsByUdid.get(outcome.udid) ?? [];
		const json = outcome.json;
		if (!json) {
			report.lostItems++;
			continue;
		}
		if (json.error === undefined) {
			if (runs.length === 1 && runs[0] === Number(json.run_id)) report.createdOnce++;
			else report.lostItems++;
			continue;
		}
		const message = String(json.error);
		report.errorMessages[message] = (report.errorMessages[message] ?? 0) + 1;
		// The item's Run was made and ended failed: version 1.3's error names that Run; from
		// version 1.4 the error names the files and Prompts, and the item carries its run_id.
		const failedRun = /^Run (\d+) (failed|ended with the status ".+")$/.exec(message);
		const failedRunId = failedRun
			? Number(failedRun[1])
			: / could not be answered|: the Run ended with the status "/.test(message)
				? Number(json.run_id)
				: undefined;
		if (failedRunId !== undefined) {
			if (runs.length === 1 && runs[0] === failedRunId) report.failedRunReported++;
			else report.lostItems++;
			continue;
		}
		if (!CLEAR_MESSAGES.some((pattern) => pattern.test(message)))
			report.unclearErrors.push(message);
		if (runs.length === 0) report.failedWithoutRun++;
		else if (WARNS_TO_CHECK.test(String(json.description ?? ''))) report.failedWithRunAndWarning++;
		else report.failedWithRunSilently++;
	}
	report.seconds = Math.round((Date.now() - started) / 100) / 10;
	return report;
}

export function formatSoakReport(report: SoakReport): string {
	const t = report.trigger;
	const kinds = Object.entries(report.faultsByKind)
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([kind, n]) => `${kind} ${n}`)
		.join(', ');
	const counted = (counts: Record<string, number>) =>
		Object.entries(counts)
			.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
			.map(([message, n]) => `      ${n} × ${message}`);
	const messages = counted(report.errorMessages);
	const pollErrors = counted(t.pollErrors);
	return [
		`Soak: ${report.runsAskedFor} Runs asked for in ${report.executions} executions; ${report.requests} requests, ${report.faultsInjected} of them faulted (${kinds})`,
		`  created exactly once:                ${report.createdOnce}`,
		`  Run made and ended failed, reported as the item's error (node version 1.3 and later): ${report.failedRunReported}`,
		`  reported failed, no Run made:        ${report.failedWithoutRun}`,
		`  reported failed, Run made, error says to check first: ${report.failedWithRunAndWarning}`,
		`  reported failed, Run made, no warning: ${report.failedWithRunSilently}`,
		`  duplicate Runs (same User-Defined ID): ${report.duplicateRuns}`,
		`  items lost (no output, or Run not found): ${report.lostItems}; Runs of no item: ${report.orphanRuns}`,
		`  unclear error messages:              ${report.unclearErrors.length}`,
		...(messages.length ? ['  errors of the failed items:', ...messages] : []),
		`Files → Links: ${report.links.items} items gave their files as links to the hazard host (${Object.entries(
			report.links.byKind,
		)
			.sort(([a], [b]) => a.localeCompare(b))
			.map(([kind, n]) => `${kind} ${n}`)
			.join(', ')}); ${report.links.hazardousItems} items had a link that cannot give its file`,
		`  requests to the file host with the API key: ${report.links.keySent}; Runs with other bytes than the links gave: ${report.links.wrongBytes}; Runs made from a hazardous link: ${report.links.hazardousWithRun}`,
		`Trigger: ${t.polls} polls (${t.failedPolls} failed under faults and were retried whole; ${t.drainPolls} clean polls after the faults stopped)`,
		...(pollErrors.length ? ['  errors of the failed polls:', ...pollErrors] : []),
		`  finished Runs: ${t.finishedRuns}, emitted: ${t.emitted}, duplicates: ${t.duplicates}, missed: ${t.missed}, unexpected: ${t.unexpected}`,
		`Trigger on All Agents, under churn: ${report.churn.polls} polls (${report.churn.failedPolls} failed under faults); ${report.churn.newAgents} Agents made during the soak; the soak's Agent left out of GET /agents in ${report.churn.pollsWithAgentHidden} polls; ${report.churn.deletedDuringPolls} Runs deleted during polls; ${report.churn.listedLate} Runs listed late`,
		`  finished Runs: ${report.churn.finishedRuns}, emitted: ${report.churn.emitted}, duplicates: ${report.churn.duplicates}, missed: ${report.churn.missed}, unexpected: ${report.churn.unexpected}`,
		...formatSimulatedSoak(report.simulated),
		`Took ${report.seconds} s`,
	].join('\n');
}

/** Everything the soak promises, as a list of broken promises (empty = all kept). */
export function soakViolations(report: SoakReport): string[] {
	const problems: string[] = [];
	const accounted =
		report.createdOnce +
		report.failedRunReported +
		report.failedWithoutRun +
		report.failedWithRunAndWarning +
		report.failedWithRunSilently;
	if (accounted !== report.runsAskedFor)
		problems.push(`${report.runsAskedFor - accounted} items unaccounted for`);
	if (report.duplicateRuns) problems.push(`${report.duplicateRuns} duplicate Runs`);
	if (report.failedWithRunSilently)
		problems.push(
			`${report.failedWithRunSilently} failed items whose Run exists without a warning`,
		);
	if (report.lostItems) problems.push(`${report.lostItems} lost items`);
	if (report.orphanRuns) problems.push(`${report.orphanRuns} Runs of no item`);
	if (report.unclearErrors.length)
		problems.push(`unclear errors: ${[...new Set(report.unclearErrors)].join(' | ')}`);
	if (report.trigger.duplicates)
		problems.push(`trigger emitted ${report.trigger.duplicates} duplicates`);
	if (report.trigger.missed) problems.push(`trigger missed ${report.trigger.missed} Runs`);
	if (report.trigger.unexpected)
		problems.push(`trigger emitted ${report.trigger.unexpected} unexpected Runs`);
	if (report.churn.duplicates)
		problems.push(`All Agents trigger emitted ${report.churn.duplicates} duplicates`);
	if (report.churn.missed) problems.push(`All Agents trigger missed ${report.churn.missed} Runs`);
	if (report.churn.unexpected)
		problems.push(`All Agents trigger emitted ${report.churn.unexpected} unexpected Runs`);
	if (report.links.keySent)
		problems.push(`the API key reached the file host ${report.links.keySent} times`);
	if (report.links.wrongBytes)
		problems.push(
			`${report.links.wrongBytes} Runs from links hold other bytes than the links gave`,
		);
	if (report.links.hazardousWithRun)
		problems.push(
			`${report.links.hazardousWithRun} Runs made from a link that cannot give its file`,
		);
	problems.push(...simulatedSoakViolations(report.simulated));
	if (
		report.trigger.finishedRuns !==
		report.createdOnce +
			report.failedRunReported +
			report.failedWithRunAndWarning +
			report.failedWithRunSilently
	) {
		problems.push('the Agent has a different number of Runs than the items made');
	}
	return problems;
}

/**
 * The All Agents trigger's hazards: the soak's Agent left out of some listings, new Agents
 * with Runs, Runs deleted from inside the triggers' list requests, and (through the
 * emulator's lateListing knob) Runs listed late.
 */
class Churn {
	readonly emitted: number[] = [];
	readonly newAgents: number[] = [];
	failedPolls = 0;
	pollsWithAgentHidden = 0;
	/** User-Defined IDs of the items of the execution under way. */
	busyUserDefinedIds = new Set<string>();
	private polls = 0;
	private readonly deleted = new Map<number, RunRecord>();
	private readonly otherAgentRuns = new Set<number>();

	constructor(
		private readonly emulator: Emulator,
		private readonly agentId: number,
		private readonly options: SoakOptions,
	) {}

	async pollAllAgents(poller: Poller, emittedByTheOther: number[]): Promise<void> {
		this.polls++;
		const hide = this.polls % this.options.hideAgentEvery === 0;
		if (hide) {
			this.emulator.knobs.hiddenAgentIds = [this.agentId];
			this.pollsWithAgentHidden++;
		}
		this.deleteDuringTheNextListRead(emittedByTheOther);
		try {
			const result = await poller.poll();
			for (const item of result?.[0] ?? []) {
				const runId = Number(item.json.run_id);
				this.emitted.push(runId);
				const agentId = Number(item.json.agent_id);
				if (agentId !== this.agentId && !this.newAgents.includes(agentId))
					this.otherAgentRuns.add(runId);
			}
		} catch {
			this.failedPolls++; // retried whole by the next poll
		} finally {
			if (hide) this.emulator.knobs.hiddenAgentIds = [];
		}
	}

	/** A Run of another (demo) Agent that finished during the soak: not judged. */
	otherAgentsRun(runId: number): boolean {
		return this.otherAgentRuns.has(runId);
	}

	/** Deletes Runs both triggers emitted, each right after a list request of the soak's Agent is handled. */
	private deleteDuringTheNextListRead(emittedByTheOther: number[]): void {
		const done = new Set(emittedByTheOther);
		const candidates = this.emitted.filter(
			(id) => done.has(id) && !this.deleted.has(id) && this.emulator.state.runOf(this.agentId, id),
		);
		for (const runId of candidates.slice(0, this.options.deletesPerPoll)) {
			this.emulator.afterRequest(
				{ method: 'GET', path: new RegExp(`/agents/${this.agentId}/runs$`) },
				() => {
					const run = this.emulator.state.runOf(this.agentId, runId);
					if (!run || this.busyUserDefinedIds.has(String(run.userDefinedId))) return;
					if (this.emulator.deleteRun(this.agentId, runId)) this.deleted.set(runId, run);
				},
			);
		}
	}

	async newAgentWithRuns(): Promise<void> {
		// The user makes the Agent in the web app: no faults on the soak's own setup request.
		const faultRate = this.emulator.knobs.faultRate;
		this.emulator.knobs.faultRate = 0;
		let agentId: number;
		try {
			agentId = await newAgent(this.emulator, `churn ${this.newAgents.length}`);
		} finally {
			this.emulator.knobs.faultRate = faultRate;
		}
		this.newAgents.push(agentId);
		for (let i = 0; i < 3; i++)
			this.emulator.createRun(agentId, [{ name: `churn-${i}.pdf` }], { durationMs: 0 });
		// Runs of earlier new Agents go on too.
		for (const earlier of this.newAgents.slice(0, -1))
			this.emulator.createRun(earlier, [{ name: 'more.pdf' }], { durationMs: 0 });
	}

	newAgentRunIds(): number[] {
		return this.newAgents.flatMap((agentId) =>
			this.emulator.state.runsOfAgent(agentId).map((run) => run.runId),
		);
	}

	deletedRuns(): RunRecord[] {
		return [...this.deleted.values()];
	}

	deletedRunIds(): number[] {
		return [...this.deleted.keys()];
	}
}
