/** Node-type registry (n8n's INodeTypes) and loading of the package's own nodes. */
import './env';

import type { IDataObject, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers, UnexpectedError } from 'n8n-workflow';

/** The package name: n8n names a community node type `<package>.<node name>`. */
export const PACKAGE_NAME = 'n8n-nodes-extraction-agents';
export const EXTRACTION_AGENTS_TYPE = `${PACKAGE_NAME}.extractionAgents`;
export const EXTRACTION_AGENTS_TRIGGER_TYPE = `${PACKAGE_NAME}.extractionAgentsTrigger`;

export type AnyNodeType = INodeType | IVersionedNodeType;

/**
 * The error instances nodes threw, by node name (last one wins). n8n-core keeps only a
 * plain-object copy of a node's error in the run data; tests get the real instance
 * (NodeApiError / NodeOperationError with its class, httpCode, description …) from here.
 */
export type ThrownErrors = Map<string, Error>;

const NODE_NAME_OF = (ctx: unknown): string | undefined => {
	try {
		return (ctx as { getNode(): { name: string } }).getNode().name;
	} catch {
		return undefined;
	}
};

/** A view of a node type whose execute/poll record what they throw (prototype keeps everything else). */
function withErrorCapture(type: INodeType, thrown: ThrownErrors): INodeType {
	const wrapped = Object.create(type) as INodeType;
	for (const method of ['execute', 'poll'] as const) {
		const original = type[method] as ((...args: unknown[]) => Promise<unknown>) | undefined;
		if (typeof original !== 'function') continue;
		(wrapped as unknown as Record<string, unknown>)[method] = async function (
			this: unknown,
			...args: unknown[]
		) {
			try {
				return await original.apply(this, args);
			} catch (error) {
				// call style: `this` is n8n's context; class style (NODE_CLASS_TAG): args[0] is.
				const name = NODE_NAME_OF(this) ?? NODE_NAME_OF(args[0]);
				if (name && error instanceof Error) thrown.set(name, error);
				throw error;
			}
		};
	}
	return wrapped;
}

export class HarnessNodeTypes implements INodeTypes {
	private readonly types = new Map<string, AnyNodeType>();

	private readonly wrapped = new Map<string, INodeType>();

	/** Errors thrown by the nodes' execute/poll during runs with these node types. */
	readonly thrown: ThrownErrors = new Map();

	constructor(types?: Record<string, AnyNodeType>) {
		for (const [name, type] of Object.entries(types ?? {})) this.types.set(name, type);
	}

	add(name: string, type: AnyNodeType): this {
		this.types.set(name, type);
		for (const key of [...this.wrapped.keys()])
			if (key.startsWith(`${name}@`)) this.wrapped.delete(key);
		return this;
	}

	has(name: string): boolean {
		return this.types.has(name);
	}

	getByName(nodeType: string): AnyNodeType {
		const type = this.types.get(nodeType);
		if (!type)
			throw new UnexpectedError(`Unknown node type "${nodeType}" (not registered in the harness)`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		const type = this.types.get(nodeType);
		// n8n's Workflow constructor tolerates unknown types (returns undefined); keep that.
		if (!type) return undefined as unknown as INodeType;
		const key = `${nodeType}@${version ?? ''}`;
		let wrapped = this.wrapped.get(key);
		if (!wrapped) {
			wrapped = withErrorCapture(NodeHelpers.getVersionedNodeType(type, version), this.thrown);
			this.wrapped.set(key, wrapped);
		}
		return wrapped;
	}

	getKnownTypes(): IDataObject {
		const known: IDataObject = {};
		for (const name of this.types.keys()) known[name] = { className: name, sourcePath: '' };
		return known;
	}
}

/** The newest version a node type offers, as the editor would add it. */
export function latestVersion(type: AnyNodeType): number {
	if ('nodeVersions' in type) {
		return type.currentVersion ?? Math.max(...Object.keys(type.nodeVersions).map(Number));
	}
	const { version, defaultVersion } = type.description;
	if (defaultVersion !== undefined) return defaultVersion;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** The name the editor gives a new node of this type (its defaults.name). */
export function defaultNodeName(type: AnyNodeType, version?: number): string {
	const { description } = NodeHelpers.getVersionedNodeType(type, version ?? latestVersion(type));
	return description.defaults?.name ?? description.displayName;
}

/** The type name n8n would give a node type instance: `<package>.<name>` unless already qualified. */
export function qualifiedTypeName(type: AnyNodeType): string {
	const { name } = type.description;
	return name.includes('.') ? name : `${PACKAGE_NAME}.${name}`;
}

function loadNodeClass(modulePath: string, className: string): AnyNodeType {
	let mod: Record<string, new () => AnyNodeType>;
	try {
		mod = require(modulePath) as Record<string, new () => AnyNodeType>;
	} catch (error) {
		throw new UnexpectedError(
			`Could not load ${className} from ${modulePath}: ${(error as Error).message}`,
			{
				cause: error,
			},
		);
	}
	const Ctor = mod[className];
	if (typeof Ctor !== 'function')
		throw new UnexpectedError(`${modulePath} does not export ${className}`);
	return new Ctor();
}

/** The package's action node (loaded lazily so the harness works before it exists). */
export function loadExtractionAgentsNode(): AnyNodeType {
	return loadNodeClass('../../nodes/ExtractionAgents/ExtractionAgents.node', 'ExtractionAgents');
}

/** The package's polling trigger node (loaded lazily). */
export function loadExtractionAgentsTriggerNode(): AnyNodeType {
	return loadNodeClass(
		'../../nodes/ExtractionAgents/ExtractionAgentsTrigger.node',
		'ExtractionAgentsTrigger',
	);
}

/** The package's nodes that can be loaded right now, by their n8n type name. */
export function packageNodeTypes(): Record<string, AnyNodeType> {
	const types: Record<string, AnyNodeType> = {};
	for (const [name, load] of [
		[EXTRACTION_AGENTS_TYPE, loadExtractionAgentsNode],
		[EXTRACTION_AGENTS_TRIGGER_TYPE, loadExtractionAgentsTriggerNode],
	] as const) {
		try {
			types[name] = load();
		} catch {
			// not written yet, or failing to load: only an error when a workflow uses it
		}
	}
	return types;
}
