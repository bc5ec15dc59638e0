import type { DisplayCondition, INode } from 'n8n-workflow';

/**
 * The versions of the action node, and the version each change of behaviour came with.
 * A workflow saved at an older version keeps that version's behaviour (n8n's rule: a change
 * a saved workflow would notice comes with a new node version); test/node/versions.test.ts
 * shows each one at both sides of its version.
 */
export const ACTION_NODE_VERSIONS = [1, 1.1, 1.2, 1.3, 1.4, 1.5];

const SINCE = {
	/** Agent → Get / Get Many simplify by default. */
	agentSimplifyByDefault: 1.1,
	/** Options → Items in Parallel defaults to 10 (one at a time before). */
	itemsInParallelByDefault: 1.1,
	/** Update Metadata sends a pair's 42 / true / null typed (text before). */
	typedMetadataPairs: 1.1,
	/** Update Metadata's JSON field starts empty (0.1.0 started it with a sample object). */
	metadataJsonStartsEmpty: 1.1,
	/** Run → Create uploads all files of the item by default (the field `data` before). */
	allFilesByDefault: 1.2,
	/** All Files of the Item leaves out images an email shows inside its text (logos). */
	skipInlineImages: 1.2,
	/** Simplified Runs: Prompt values first, objects as columns, lists as text. */
	sheetReadyRuns: 1.2,
	/** Download Templated Output picks the template with a resource locator (a dropdown before). */
	outputTemplateLocator: 1.2,
	/** Simplified Runs: a column name already taken gets " (2)", " (3)"… (a value overwrote another before). */
	collisionFreeColumns: 1.3,
	/**
	 * Run → Create: a Run waited for that ends `failed` (or any end but `success`) is an item
	 * error, unless Options → Failed Runs says Output as Results (a result before).
	 */
	failedRunsAreErrors: 1.3,
	/** Run → Create's Timeout (Minutes) is shown in whole minutes ("10", not "10.00"). */
	wholeMinuteTimeout: 1.3,
	/**
	 * Run → Create: a failed Run's error item speaks to whoever reviews the document (the files,
	 * the Prompts that failed and why, the Agent's name) and leaves out n8n setup steps.
	 */
	reviewerErrorItems: 1.4,
	/**
	 * Run → Create: Runs (`filesPerRun`) is shown, One Run per File by default: each file its own
	 * Run and its own output item (one Run per item before, as Runs → One Run per Item still does).
	 */
	runPerFile: 1.5,
	/**
	 * Run → Create: a Run that succeeded with failed Prompts is an item error carrying the values
	 * read, unless Options → Runs with Failed Prompts says Output as Results (a result before).
	 */
	partlyReadRunsAreErrors: 1.5,
	/**
	 * Run → Create: an item whose only files are images shown in its email's text (a logo) gives
	 * no output item and sends nothing (an item error before).
	 */
	noDocumentNoItem: 1.5,
	/**
	 * Run → Create: an upload cut before its last byte (no Run made) is sent again; with a
	 * User-Defined ID that is not a file's name, after a 5xx or a dropped connection once the
	 * body was sent, the node uses the Run the Agent's newest Runs show it made, and an
	 * execution retried from n8n's list uses the Runs it already made (an item error before;
	 * actions/run/createOnce.ts).
	 */
	createRetriedByUserDefinedId: 1.5,
} as const;

export type VersionedBehaviour = keyof typeof SINCE;

/** The versions of the trigger node, and what each brought (see SINCE). */
export const TRIGGER_NODE_VERSIONS = [1, 1.1, 1.2];

const TRIGGER_SINCE = {
	/** "Trigger On" for the statuses; Include Full Run and On Re-Activation under Options. */
	settingsInOptions: 1.1,
	/** Simplify gives the sheet-ready row of the action node's version 1.2. */
	sheetReadyRuns: 1.1,
	/** Simplify names columns as the action node's version 1.3 does (collisionFreeColumns). */
	collisionFreeColumns: 1.2,
} as const;

export type TriggerBehaviour = keyof typeof TRIGGER_SINCE;

/** `displayOptions.show['@version']` of the trigger versions with (or without) the behaviour. */
export function triggerVersions(behaviour: TriggerBehaviour, has: boolean): DisplayCondition[] {
	const since = TRIGGER_SINCE[behaviour];
	return has ? [{ _cnd: { gte: since } }] : [{ _cnd: { lt: since } }];
}

/** Whether the trigger, at the version its workflow saved, has the behaviour. */
export function triggerHasBehaviour(node: INode, behaviour: TriggerBehaviour): boolean {
	return node.typeVersion >= TRIGGER_SINCE[behaviour];
}

/** `displayOptions.show['@version']` for the versions that have the behaviour. */
export function versionsWith(behaviour: VersionedBehaviour): DisplayCondition[] {
	return [{ _cnd: { gte: SINCE[behaviour] } }];
}

/** `displayOptions.show['@version']` for the versions saved before the behaviour came. */
export function versionsWithout(behaviour: VersionedBehaviour): DisplayCondition[] {
	return [{ _cnd: { lt: SINCE[behaviour] } }];
}

/** Whether the node, at the version its workflow saved, has the behaviour. */
export function hasBehaviour(node: INode, behaviour: VersionedBehaviour): boolean {
	return node.typeVersion >= SINCE[behaviour];
}
