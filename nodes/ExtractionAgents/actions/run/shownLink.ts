import { withoutPassword } from '../../transport/baseUrl';

/**
 * A link as messages show it: enough to tell which link failed and why, none of its secrets.
 * Messages go on to error workflows, Slack alerts and logs, and the links users give are often
 * presigned: S3 (`X-Amz-Signature`, `X-Amz-Security-Token`, `X-Amz-Credential`), Azure SAS
 * (`sig`), Google Cloud Storage (`X-Goog-Signature`), Dropbox (`rlkey`), a plain `?token=`, or a
 * name no list could foresee. So the rule masks by default and shows by exception:
 *
 * - every query value is masked (`?X-Amz-Signature=***`): the names stay, so the user still
 *   sees which link it is and what kind of link;
 * - except a short list of names whose values are never secrets and are what it takes to fix
 *   the link, shown only when the value has their harmless shape: Dropbox's `dl` (dl=0 gives
 *   a page, dl=1 the file), `raw`, `download`, `alt`, `export`, `format` (a short word or
 *   number), and the expiry of a presigned link (`se`, `st`, `Expires`, `X-Amz-Date`,
 *   `X-Amz-Expires`, `X-Goog-Date`, `X-Goog-Expires`: digits and date characters), which is
 *   what tells the user a link has expired;
 * - a path segment that looks like a token (12 or more letters, digits, `-_!~%`, with both a
 *   letter and a digit, and no dot) is masked: the path of a OneDrive, SharePoint, Google Drive
 *   or old Dropbox share link is its secret. A file name has a dot and stays, unless what
 *   follows its last dot is a random token rather than an extension (16+ characters mixing
 *   lower case, upper case and digits), or it has a JSON Web Token's shape (`eyJ…` and two to
 *   four dots): a signed token some download services put in the path;
 * - the fragment is masked, and `user:password@` as the Base URL's is.
 */

const MASK = '***';

const WORD_VALUE = /^[A-Za-z0-9]{1,12}$/;
const TIME_VALUE = /^(?:[0-9TZ.:+-]|%3A|%2B){1,32}$/i;

/** Query parameters shown with their value when it has the given shape (names compared lower-case). */
const SHOWN_PARAMETERS: ReadonlyMap<string, RegExp> = new Map([
	...['dl', 'raw', 'download', 'alt', 'export', 'format'].map(
		(name) => [name, WORD_VALUE] as const,
	),
	...['se', 'st', 'expires', 'x-amz-date', 'x-amz-expires', 'x-goog-date', 'x-goog-expires'].map(
		(name) => [name, TIME_VALUE] as const,
	),
]);

function decoded(text: string): string {
	try {
		return decodeURIComponent(text.replace(/\+/g, ' '));
	} catch {
		return text;
	}
}

function shownParameter(pair: string): string {
	if (pair === '') return pair;
	const equals = pair.indexOf('=');
	const name = equals < 0 ? pair : pair.slice(0, equals);
	const value = equals < 0 ? undefined : pair.slice(equals + 1);
	const shape = SHOWN_PARAMETERS.get(decoded(name).trim().toLowerCase());
	if (value === undefined) return shape ? name : MASK;
	if (value === '' || shape?.test(value)) return pair;
	return `${name}=${MASK}`;
}

/** A path segment that is a share token rather than a name (see the rule above). */
export function isTokenSegment(segment: string): boolean {
	return (
		segment.length >= 12 &&
		/^[A-Za-z0-9_\-!~%]+$/.test(segment) &&
		/[A-Za-z]/.test(segment) &&
		/[0-9]/.test(segment)
	);
}

/** A JSON Web Token (three parts) or Encryption (five), padded or not. */
const JSON_WEB_TOKEN = /^eyJ[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*){2,4}=*$/;

/**
 * What follows a segment's last dot when it is a token, not an extension: 16 or more
 * base64url characters mixing lower case, upper case and digits, as random ones do (a date or
 * version after a dot, `2024-01-15T10-30-00Z`, `v20240101`, has no lower or no upper case).
 */
function isTokenAfterDot(part: string): boolean {
	return (
		part.length >= 16 &&
		/^[A-Za-z0-9_-]+=*$/.test(part) &&
		/[a-z]/.test(part) &&
		/[A-Z]/.test(part) &&
		/[0-9]/.test(part)
	);
}

/** A path segment masked in messages: a token, or a dotted one (see the rule above). */
export function isSecretSegment(segment: string): boolean {
	if (isTokenSegment(segment) || JSON_WEB_TOKEN.test(segment)) return true;
	const lastDot = segment.lastIndexOf('.');
	return lastDot >= 0 && isTokenAfterDot(segment.slice(lastDot + 1));
}

export function shownLink(link: string): string {
	let rest = withoutPassword(link);
	let fragment = '';
	const hashAt = rest.indexOf('#');
	if (hashAt >= 0) {
		fragment = hashAt === rest.length - 1 ? '#' : `#${MASK}`;
		rest = rest.slice(0, hashAt);
	}
	let query = '';
	const questionAt = rest.indexOf('?');
	if (questionAt >= 0) {
		query = `?${rest
			.slice(questionAt + 1)
			.split('&')
			.map(shownParameter)
			.join('&')}`;
		rest = rest.slice(0, questionAt);
	}
	const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(rest)?.[0] ?? '';
	const path = rest
		.slice(origin.length)
		.split('/')
		.map((segment) => (isSecretSegment(segment) ? MASK : segment))
		.join('/');
	return `${origin}${path}${query}${fragment}`;
}
