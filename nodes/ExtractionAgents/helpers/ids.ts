import type { IExecuteFunctions, ILoadOptionsFunctions, INode, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

type LocatorValue = string | number | { value?: unknown; mode?: unknown } | undefined | null;

/** Where each kind of ID sits in a web-app link (an Output Template's link also holds its Agent's ID). */
const LINK_PATTERNS = {
	Agent: /\/agents\/(\d+)/,
	Run: /\/runs\/(\d+)/,
	'Output Template': /\/(?:output[-_]?)?templates\/(\d+)/,
} as const;

/**
 * Agent and Run IDs are integers (docs/design/service-notes.md #2). A picker gives the ID itself, or a
 * web-app link containing `/agents/<id>` or `/runs/<id>`; anything else is refused
 * here, before a request is sent.
 */
export function parseResourceId(
	node: INode,
	raw: LocatorValue,
	what: 'Agent' | 'Run' | 'Output Template',
	itemIndex?: number,
): number {
	const value = raw !== null && typeof raw === 'object' ? raw.value : raw;
	const text = value === undefined || value === null ? '' : String(value).trim();
	const linked = text.match(LINK_PATTERNS[what]);
	const candidate = linked ? linked[1] : text;
	if (/^\d+$/.test(candidate) && Number(candidate) > 0 && Number.isSafeInteger(Number(candidate))) {
		return Number(candidate);
	}
	throw new NodeOperationError(node, notAnIdMessage(text, what), {
		description:
			text === ''
				? `Choose the ${what} From List, or enter its ID (a whole number).`
				: `Choose the ${what} From List, or paste its link from the web app: it contains /${LINK_PATHS[what]}/ and a number, e.g. /${LINK_PATHS[what]}/42.`,
		itemIndex,
	});
}

/** The path word of each kind's web-app link, as the description shows it. */
const LINK_PATHS = { Agent: 'agents', Run: 'runs', 'Output Template': 'output-templates' } as const;

/** What is wrong with the text given as an ID: nothing, a link to something else, or not an ID. */
function notAnIdMessage(text: string, what: keyof typeof LINK_PATTERNS): string {
	if (text === '') return `No ${what} selected`;
	const shown = `"${text.slice(0, 80)}"`;
	if (!/^[a-z][a-z0-9+.-]*:\/\/|^www\./i.test(text)) return `${shown} is not a valid ${what} ID`;
	const other = (Object.keys(LINK_PATTERNS) as Array<keyof typeof LINK_PATTERNS>).find(
		(kind) => kind !== what && LINK_PATTERNS[kind].test(text),
	);
	return other
		? `${shown} is a link to ${other === 'Agent' ? 'an' : 'a'} ${other}, not to ${what === 'Agent' ? 'an' : 'a'} ${what}`
		: `${shown} is not a link to ${what === 'Agent' ? 'an' : 'a'} ${what}`;
}

export function agentIdParameter(context: IExecuteFunctions, itemIndex: number): number {
	return parseResourceId(
		context.getNode(),
		context.getNodeParameter('agent', itemIndex, '', { extractValue: true }) as LocatorValue,
		'Agent',
		itemIndex,
	);
}

export function runIdParameter(context: IExecuteFunctions, itemIndex: number): number {
	return parseResourceId(
		context.getNode(),
		context.getNodeParameter('run', itemIndex, '', { extractValue: true }) as LocatorValue,
		'Run',
		itemIndex,
	);
}

/** The Agent chosen in the node while the user edits it (for pickers that depend on it). */
export function currentAgentId(
	context: ILoadOptionsFunctions | IPollFunctions,
): number | undefined {
	try {
		const raw = (context as ILoadOptionsFunctions).getCurrentNodeParameter
			? (context as ILoadOptionsFunctions).getCurrentNodeParameter('agent', { extractValue: true })
			: (context as IPollFunctions).getNodeParameter('agent', '', { extractValue: true });
		return parseResourceId(context.getNode(), raw as LocatorValue, 'Agent');
	} catch {
		return undefined;
	}
}
