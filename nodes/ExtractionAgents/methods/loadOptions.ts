import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { fetchAgent } from '../helpers/agents';
import { currentAgentId } from '../helpers/ids';
import { templateKindOf, templateNameOf } from '../helpers/templates';

/** Output templates of the chosen Agent, shown by file name. */
export async function getOutputTemplates(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const agentId = currentAgentId(this);
	if (agentId === undefined) return [];
	const agent = await fetchAgent(this, agentId);
	return (agent.output_templates ?? []).map((template) => {
		const kind = templateKindOf(template.filename);
		return {
			name: templateNameOf(template),
			value: template.id,
			description:
				kind === 'word'
					? 'Word template: DOCX or PDF'
					: kind === 'excel'
						? 'Excel template: XLSX, XLSM or CSV'
						: undefined,
		};
	});
}
