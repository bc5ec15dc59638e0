import type { IHttpRequestOptions } from 'n8n-workflow';
import type { ServiceRequest } from './types';

/**
 * The HTTP client's options for one attempt: every status comes back as an answer (the
 * transport classifies it, see classifyAnswer.ts), and an upload is streamed as it is.
 * An upload has no client timeout (`timeout: 0`): the client's is a wall clock that would
 * cut a slow upload while its bytes flow; `uploadSignal` stops it by the upload's own
 * rules instead (uploadWatch.ts).
 */
export function buildHttpRequest(
	apiRoot: string,
	request: ServiceRequest,
	timeoutMs: number,
	uploadSignal?: AbortSignal,
): IHttpRequestOptions {
	const upload = request.upload;
	return {
		...(upload && uploadSignal ? { abortSignal: uploadSignal } : {}),
		method: request.method,
		url: `${apiRoot}${request.path}`,
		qs: request.qs,
		body: (upload ?? request.body) as IHttpRequestOptions['body'],
		json: upload === undefined,
		timeout: upload && uploadSignal ? 0 : timeoutMs,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// The service never redirects its API; following redirects would also make
		// axios keep a copy of every uploaded byte in memory (docs/design/service-notes.md #9).
		disableFollowRedirect: true,
		headers: upload
			? {
					'Content-Type': upload.type,
					// A body with a file of unknown length (a link whose host does not announce it) goes
					// chunked: `false` keeps the client from adding a Content-Length of its own.
					'Content-Length': upload.lengthKnown ? String(upload.size) : false,
					Accept: 'application/json',
				}
			: { Accept: request.binaryResponse ? '*/*' : 'application/json' },
		...(request.binaryResponse ? { encoding: 'arraybuffer' as const } : {}),
	};
}
