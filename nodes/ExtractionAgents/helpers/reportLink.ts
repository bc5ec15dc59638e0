/**
 * Where a user reports a problem in the node itself: the repository's issues page (the
 * package's `homepage` and `repository`; test/node/plain-words.test.ts checks they agree).
 */
export const REPORT_PROBLEM_URL =
	'https://github.com/extraction-agents/n8n-nodes-extraction-agents/issues';
