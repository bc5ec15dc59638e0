/**
 * Which failed attempts the service may have carried out: only after one of those may a
 * retried Delete read 404 as "already deleted" (the engine tests in run-ops.test.ts show the
 * 503 and 429 cases on the wire; a refused connection cannot be made by the emulator).
 */
import { mayHaveBeenProcessed } from '../../nodes/ExtractionAgents/transport/retry';

describe('mayHaveBeenProcessed', () => {
	it.each([
		['a 500', { status: 500 }, true],
		['a 503', { status: 503 }, true],
		['a time-out', { networkCode: 'ETIMEDOUT' }, true],
		['a reset connection', { networkCode: 'ECONNRESET' }, true],
		['an answer cut off', { malformedBody: true }, true],
		['a 429', { status: 429 }, false],
		['a refused connection', { networkCode: 'ECONNREFUSED' }, false],
		['an unknown host', { networkCode: 'ENOTFOUND' }, false],
	])('%s → %s', (_case, failure, expected) => {
		expect(mayHaveBeenProcessed({ method: 'DELETE', retries: 0, ...failure })).toBe(expected);
	});
});
