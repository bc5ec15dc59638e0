import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import type { MultipartBody } from './multipart';
import type { Idempotency } from './retry';
import type { RequestSubject } from './subjects';

/** Every n8n context the nodes send requests from. */
export type ServiceContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Relative to the API root, e.g. `/agents/12/runs`. */
	path: string;
	qs?: IDataObject;
	/** A JSON body. */
	body?: IDataObject;
	/** A streamed multipart/form-data body (Create Run); sent instead of `body`. */
	upload?: MultipartBody;
	/** Defaults by method: GET and DELETE are idempotent, everything else creates. */
	idempotency?: Idempotency;
	subject?: RequestSubject;
	/**
	 * For deletes: a 404 on a retry after an attempt the service may have carried out (a
	 * 5xx, a time-out, a dropped connection) means that attempt deleted it and its answer
	 * was lost, so it counts as success. A 404 on the first attempt, or after attempts the
	 * service cannot have acted on (a 429, a refused connection), is still "not found".
	 */
	missingOnRetryMeansDone?: boolean;
	/** Binary downloads (templated output). */
	binaryResponse?: boolean;
	/**
	 * Per attempt: the node's "Request Timeout" option, plus 1 s per MB of an upload
	 * (helpers/requestTimeoutOption.ts reads it; the transport reads no node parameter).
	 */
	timeoutMs: number;
	/**
	 * Epoch ms past which the request is neither retried nor held back by a 429 of its
	 * execution: the caller's own limit (a Run's Wait timeout). It then fails at once
	 * with the failure it had, or "rate limited until …".
	 */
	deadlineMs?: number;
	itemIndex?: number;
}

export interface ServiceResponse<T = unknown> {
	statusCode: number;
	headers: Record<string, unknown>;
	body: T;
}
