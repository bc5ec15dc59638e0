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
	throw new NodeOperationError(
		node,
		text === '' ? `No ${what} selected` : `"${text.slice(0, 80)}" is not a valid ${what} ID`,
		{
			description:
				text === ''
					? `Choose the ${what} from the list, or enter its ID (a whole number).`
					: `${what === 'Run' ? 'A' : 'An'} ${what} ID is a whole number such as 42, or a link from the web app containing /${what === 'Run' ? 'runs' : what === 'Agent' ? 'agents' : 'output-templates'}/42.`,
			itemIndex,
		},
	);
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
