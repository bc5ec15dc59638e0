/**
 * Bearer authentication (spec "Authentication", service note 1): a missing, unknown, deleted or expired key
 * answers 401 with `{"detail": "..."}`.
 */
import { unauthorized } from './errors';
import type { EmulatorState } from './store';
import type { ApiKeyRecord, UserRecord } from './types';

export const MSG_INVALID_KEY = 'Invalid or missing API key';
export const MSG_EXPIRED_KEY = 'API key expired';

export interface AuthResult {
	user: UserRecord;
	key: ApiKeyRecord;
}

/** The secret from an `Authorization: Bearer <key>` header (scheme case-insensitive), or null. */
export function bearerToken(header: string | undefined): string | null {
	if (!header) return null;
	const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
	return m ? m[1] : null;
}

export function isExpired(key: ApiKeyRecord, now: number): boolean {
	return key.expiresMs !== null && key.expiresMs <= now;
}

/** Resolves the caller or throws a 401 ApiError. */
export function authenticate(
	state: EmulatorState,
	header: string | undefined,
	now: number,
): AuthResult {
	const secret = bearerToken(header);
	const key = secret ? state.keyBySecret(secret) : undefined;
	if (!key) throw unauthorized(MSG_INVALID_KEY);
	if (isExpired(key, now)) throw unauthorized(MSG_EXPIRED_KEY);
	const user = state.users.get(key.userId);
	if (!user) throw unauthorized(MSG_INVALID_KEY);
	return { user, key };
}
