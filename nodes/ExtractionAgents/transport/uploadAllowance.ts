/**
 * The request timeout is the HTTP client's inactivity timeout; after the last byte of an
 * upload the service still has to take the files in before it answers, so each started
 * MB of the upload adds this much.
 */
const UPLOAD_ALLOWANCE_MS_PER_MB = 1000;

/** How much longer than a request's timeout an upload of `uploadBytes` may wait for its answer. */
export function uploadAllowanceMs(uploadBytes: number): number {
	return Math.ceil(Math.max(0, uploadBytes) / 1_000_000) * UPLOAD_ALLOWANCE_MS_PER_MB;
}
