/**
 * API keys of the caller (spec: a user lists, reads and deletes only their own keys).
 * Another user's key is invisible: 404 on read (service note 29), and DELETE answers 204 without touching it.
 */
import { randomBytes } from 'node:crypto';
import { isExpired } from '../auth';
import { Issues, issue, notFound, paginate, queryPaging } from '../errors';
import { parseIsoMicros, tsZulu } from '../time';
import type { ApiKeyRecord, UserRecord } from '../types';
import { bodyObject } from './agents';
import { noContent, ok, Route } from './context';

export function keyHint(secret: string): string {
	return `${secret.slice(0, 8)}...${secret.slice(-4)}`;
}

export function apiKeyView(
	key: ApiKeyRecord,
	user: UserRecord | undefined,
	now: number,
	withSecret: boolean,
): Record<string, unknown> {
	const view: Record<string, unknown> = {
		id: key.id,
		name: key.name,
		created_at: tsZulu(key.createdMs),
		expires_at: key.expiresMs === null ? null : tsZulu(key.expiresMs),
		created_by: user?.email ?? key.userId,
		status: isExpired(key, now) ? 'expired' : 'active',
		api_key_hint: keyHint(key.secret),
	};
	if (withSecret) view.api_key = key.secret; // only in the creation response
	return view;
}

export const apiKeyRoutes: Route[] = [
	{
		method: 'POST',
		path: '/api-keys',
		operation: 'api_keys.create',
		family: 'api-keys',
		body: 'json',
		handle(ctx) {
			const body = bodyObject(ctx.body);
			const issues = new Issues();
			let name = '';
			if (body.name === undefined || body.name === null)
				issues.add(issue.missing(['body', 'name'], body));
			else if (typeof body.name !== 'string')
				issues.add(issue.stringType(['body', 'name'], body.name));
			else if (body.name.trim().length < 1)
				issues.add(issue.stringTooShort(['body', 'name'], body.name, 1));
			else if (body.name.length > 255)
				issues.add(issue.stringTooLong(['body', 'name'], body.name, 255));
			else name = body.name.trim();
			let expiresMs: number | null = null;
			// Gap 16: expiry field is expires_at (ISO 8601), optional.
			if (body.expires_at !== undefined && body.expires_at !== null) {
				const us = typeof body.expires_at === 'string' ? parseIsoMicros(body.expires_at) : null;
				if (us === null) issues.add(issue.datetime(['body', 'expires_at'], body.expires_at));
				else expiresMs = Math.floor(us / 1000);
			}
			issues.throwIfAny();
			const key: ApiKeyRecord = {
				id: `ak_${randomBytes(8).toString('hex')}`,
				name,
				secret: `ea_${randomBytes(20).toString('hex')}`,
				userId: ctx.user.id,
				createdMs: ctx.now,
				expiresMs,
			};
			ctx.state.addApiKey(key);
			return ok(apiKeyView(key, ctx.user, ctx.now, true));
		},
	},
	{
		method: 'GET',
		path: '/api-keys',
		operation: 'api_keys.list',
		family: 'api-keys',
		body: 'none',
		handle(ctx) {
			const issues = new Issues();
			const { pageNumber, pageSize } = queryPaging(ctx.query, issues);
			issues.throwIfAny();
			const own = [...ctx.state.apiKeys.values()]
				.filter((k) => k.userId === ctx.user.id)
				.sort((a, b) => a.createdMs - b.createdMs || a.id.localeCompare(b.id));
			const page = paginate(own, pageNumber, pageSize);
			return ok({
				api_keys: page.items.map((k) => apiKeyView(k, ctx.user, ctx.now, false)),
				total_pages: page.totalPages,
				page_number: pageNumber,
				page_size: pageSize,
			});
		},
	},
	{
		method: 'GET',
		path: '/api-keys/:key_id',
		operation: 'api_keys.get',
		family: 'api-keys',
		body: 'none',
		handle(ctx) {
			const key = ctx.state.apiKeys.get(ctx.params.key_id);
			if (!key || key.userId !== ctx.user.id)
				throw notFound(`API key ${ctx.params.key_id} not found`);
			return ok(apiKeyView(key, ctx.user, ctx.now, false));
		},
	},
	{
		method: 'DELETE',
		path: '/api-keys/:key_id',
		operation: 'api_keys.delete',
		family: 'api-keys',
		body: 'none',
		handle(ctx) {
			const key = ctx.state.apiKeys.get(ctx.params.key_id);
			if (key && key.userId === ctx.user.id) ctx.state.removeApiKey(key.id);
			return noContent(); // idempotent: a missing key also answers 204
		},
	},
];
