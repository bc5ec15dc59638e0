/** Word or Excel template, by the template's file extension (docs/design/service-notes.md #24). */
export type TemplateKind = 'word' | 'excel' | 'unknown';

export const OUTPUT_FORMATS = ['pdf', 'docx', 'xlsx', 'xlsm', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const FORMATS_BY_KIND: Record<TemplateKind, readonly OutputFormat[]> = {
	word: ['docx', 'pdf'],
	excel: ['xlsx', 'xlsm', 'csv'],
	unknown: OUTPUT_FORMATS,
};

/** The UI default when the user keeps "Template's Default" (docs/design/service-notes.md #24). */
export const DEFAULT_FORMAT_BY_KIND: Record<TemplateKind, OutputFormat | undefined> = {
	word: 'docx',
	excel: 'xlsx',
	unknown: undefined,
};

export const MIME_TYPE_BY_FORMAT: Record<OutputFormat, string> = {
	pdf: 'application/pdf',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	xlsm: 'application/vnd.ms-excel.sheet.macroEnabled.12',
	csv: 'text/csv',
};

/** A template without a file name (not promised: docs/design/service-notes.md #24) has an unknown kind. */
export function templateKindOf(fileName: unknown): TemplateKind {
	const extension =
		(typeof fileName === 'string' ? fileName : '').toLowerCase().split('.').pop() ?? '';
	if (['docx', 'dotx', 'docm', 'doc'].includes(extension)) return 'word';
	if (['xlsx', 'xlsm', 'xltx', 'xltm', 'xls'].includes(extension)) return 'excel';
	return 'unknown';
}

/** How a template is named to the user: its file name, or its ID when it has none. */
export function templateNameOf(template: { id: unknown; filename?: unknown }): string {
	return typeof template.filename === 'string' && template.filename.trim() !== ''
		? template.filename
		: `Template ${String(template.id)}`;
}

/**
 * The file name from Content-Disposition: `filename*=UTF-8''…` (RFC 6266, preferred
 * because it carries non-ASCII names) or `filename="…"`.
 */
export function fileNameFromContentDisposition(header: unknown): string | undefined {
	const value = Array.isArray(header)
		? String(header[0] ?? '')
		: typeof header === 'string'
			? header
			: '';
	if (!value) return undefined;
	const extended = value.match(/filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i);
	if (extended) {
		try {
			return decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ''));
		} catch {
			// A malformed percent-encoding: fall back to the plain parameter below.
		}
	}
	const plain = value.match(/filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i);
	if (!plain) return undefined;
	const name = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1].trim();
	return name || undefined;
}
