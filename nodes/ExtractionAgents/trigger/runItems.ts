import type { IDataObject } from 'n8n-workflow';
import type { Run } from '../helpers/runs';
import { sheetRowOfRun, simplifyRun } from '../helpers/shapeRun';
import { READ_ERROR_FIELD } from './runReads';

/** Whether `run` finished with one of the chosen statuses; "other" is any status added to the API later. */
export function hasChosenStatus(run: Run, statuses: string[]): boolean {
	const status = String(run.status);
	if (statuses.includes(status)) return true;
	return statuses.includes('other') && !['success', 'failed', 'running'].includes(status);
}

/**
 * The Run as an item; a Run emitted from its list data keeps the error of its failed read.
 * With `collisionFree` (trigger 1.2) a Prompt column never takes `read_error`'s name.
 */
export function itemOfRun(
	run: Run,
	simplify: boolean,
	sheetReady: boolean,
	collisionFree = false,
): IDataObject {
	if (!simplify) return run;
	const row = sheetReady
		? sheetRowOfRun(run, { collisionFree, reserved: [READ_ERROR_FIELD] })
		: simplifyRun(run);
	const readError = run[READ_ERROR_FIELD];
	return readError === undefined ? row : { ...row, [READ_ERROR_FIELD]: readError };
}
