/**
 * PUT /access-logs/query (Enterprise plan only, else 403).
 * Gap 17: time_range required; page_size 1..1000, default 100; the end is next_cursor null.
 * Events are returned oldest first; both time bounds are inclusive. The cursor is opaque
 * (base64url of the position of the last returned event in the append-only log), so pages never
 * shift when new events arrive.
 */
import { forbidden, Issues, issue } from '../errors';
import { parseIsoMicros } from '../time';
import { bodyObject } from './agents';
import { isPlainObject, ok, Route } from './context';

export const MSG_ENTERPRISE_ONLY = 'Access logs need the Enterprise plan';

export function encodeCursor(position: number): string {
	return Buffer.from(`v1:${position}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number | null {
	const m = /^v1:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
	return m ? Number(m[1]) : null;
}

function stringList(
	value: unknown,
	loc: Array<string | number>,
	issues: Issues,
): string[] | undefined {
	if (value === undefined || value === null) return undefined;
	if (!Array.isArray(value)) {
		issues.add(issue.listType(loc, value));
		return undefined;
	}
	value.forEach((v, i) => {
		if (typeof v !== 'string') issues.add(issue.stringType([...loc, i], v));
	});
	return value as string[];
}

export const accessLogRoutes: Route[] = [
	{
		method: 'PUT',
		path: '/access-logs/query',
		operation: 'access_logs.query',
		family: 'access-logs',
		body: 'json',
		handle(ctx) {
			if (ctx.user.plan !== 'enterprise') throw forbidden(MSG_ENTERPRISE_ONLY);
			const body = bodyObject(ctx.body);
			const issues = new Issues();

			let start: number | undefined;
			let end: number | undefined;
			const tr = body.time_range;
			if (tr === undefined || tr === null) issues.add(issue.missing(['body', 'time_range'], body));
			else if (!isPlainObject(tr)) issues.add(issue.dictType(['body', 'time_range'], tr));
			else {
				for (const field of ['start_time', 'end_time'] as const) {
					const loc = ['body', 'time_range', field];
					const raw = tr[field];
					if (raw === undefined || raw === null) issues.add(issue.missing(loc, tr));
					else {
						const us = typeof raw === 'string' ? parseIsoMicros(raw) : null;
						if (us === null) issues.add(issue.datetime(loc, raw));
						else if (field === 'start_time') start = us;
						else end = us;
					}
				}
				if (start !== undefined && end !== undefined && start > end) {
					issues.add(
						issue.valueError(['body', 'time_range'], tr, 'start_time must not be after end_time'),
					);
				}
			}

			let users: string[] | undefined;
			let ips: string[] | undefined;
			if (body.filters !== undefined && body.filters !== null) {
				if (!isPlainObject(body.filters))
					issues.add(issue.dictType(['body', 'filters'], body.filters));
				else {
					users = stringList(body.filters.users, ['body', 'filters', 'users'], issues);
					ips = stringList(body.filters.client_ips, ['body', 'filters', 'client_ips'], issues);
				}
			}

			let pageSize = 100;
			if (body.page_size !== undefined && body.page_size !== null) {
				const v = body.page_size;
				if (typeof v !== 'number' || !Number.isInteger(v))
					issues.add(issue.intType(['body', 'page_size'], v));
				else if (v < 1) issues.add(issue.ge(['body', 'page_size'], v, 1));
				else if (v > 1000) issues.add(issue.le(['body', 'page_size'], v, 1000));
				else pageSize = v;
			}

			let after = -1;
			if (body.cursor !== undefined && body.cursor !== null && body.cursor !== '') {
				const position = typeof body.cursor === 'string' ? decodeCursor(body.cursor) : null;
				if (position === null)
					issues.add(issue.valueError(['body', 'cursor'], body.cursor, 'invalid cursor'));
				else after = position;
			}
			issues.throwIfAny();

			const startMs = Math.floor(start! / 1000);
			const endMs = Math.floor(end! / 1000);
			const workspaces = new Set(ctx.user.workspaces);
			const userSet = users && users.length ? new Set(users) : undefined;
			const ipSet = ips && ips.length ? new Set(ips) : undefined;
			const log = ctx.state.accessLogs;
			let total = 0;
			const page: number[] = []; // positions in the log
			let more = false;
			for (let i = 0; i < log.length; i++) {
				const e = log[i];
				const matches =
					workspaces.has(e.workspace_id) &&
					e.timestamp_millis >= startMs &&
					e.timestamp_millis <= endMs &&
					(!userSet || userSet.has(e.user)) &&
					(!ipSet || ipSet.has(e.client_ip));
				if (!matches) continue;
				total++;
				if (i <= after) continue;
				if (page.length < pageSize) page.push(i);
				else more = true;
			}
			return ok({
				total_events: total,
				events: page.map((i) => ({ ...log[i], metadata: { ...log[i].metadata } })),
				next_cursor: more
					? ctx.knobs.repeatAccessLogCursor && after >= 0
						? body.cursor
						: encodeCursor(page[page.length - 1])
					: null,
			});
		},
	},
];
