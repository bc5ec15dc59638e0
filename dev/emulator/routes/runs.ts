/**
 * Runs: create (streamed multipart), list, read, delete, templated output.
 */
import {
	ApiError,
	Issues,
	conflict,
	issue,
	notFound,
	paginate,
	pathInt,
	queryInt,
	queryPaging,
	validationError,
} from '../errors';
import { countFileParts, FILES_FIELD, newUploadInfo, parseUpload } from '../multipart';
import { chance } from '../random';
import { runProgress, runResults, runView, type RunViewContext } from '../runs';
import { parseIsoMicros, tsZulu } from '../time';
import {
	contentDisposition,
	DEFAULT_FORMAT,
	FORMATS_BY_KIND,
	OUTPUT_FORMATS,
	OutputFormat,
	formatValue,
	renderTemplatedOutput,
	templateKind,
} from '../templated-output';
import type { RunRecord } from '../types';
import { bodyObject } from './agents';
import { EmuResponse, noContent, ok, RequestContext, requireAgent, Route } from './context';

/** Gap 8: `runs` is an array of arrays; the emulator groups each page into chunks of this size. */
export const NESTED_CHUNK = 10;

/** Gap 9: form fields of POST runs. */
export const FIELD_USER_DEFINED_ID = 'user_defined_id';
export const FIELD_DUE_DATE = 'due_date';

function viewContext(ctx: RequestContext): RunViewContext {
	return {
		webUrl: ctx.webUrl,
		billing: ctx.user.billing,
		omitUserDefinedId: ctx.knobs.omitUserDefinedId === true,
	};
}

function requireRun(ctx: RequestContext, agentId: number): RunRecord {
	const runId = pathInt(ctx.params, 'run_id');
	const run = ctx.state.runOf(agentId, runId);
	if (!run) throw notFound(`Run ${runId} not found`);
	return run;
}

async function createRun(ctx: RequestContext): Promise<EmuResponse> {
	// The Agent is checked before the body is read: no point streaming 250 MB to a 404.
	const agent = requireAgent(ctx);
	const upload = newUploadInfo(ctx.req);
	ctx.log.upload = upload;
	const {
		maxFiles,
		maxFileSize,
		keepUploadBytesUnder,
		uploadBytesPerSecond,
		uploadStallAfterBytes,
		uploadResetAfterBytes,
	} = ctx.knobs;
	const result = await parseUpload(
		ctx.req,
		{
			maxFiles,
			maxFileSize,
			keepBytesUnder: keepUploadBytesUnder,
			bytesPerSecond: uploadBytesPerSecond,
			stallAfterBytes: uploadStallAfterBytes,
			resetAfterBytes: uploadResetAfterBytes,
		},
		upload,
	);
	if (result.kind === 'malformed')
		throw new ApiError(400, { detail: 'There was an error parsing the body' });
	if (result.kind === 'invalid') throw validationError(result.issues);

	const issues = new Issues();
	const fileCount = countFileParts(upload);
	if (fileCount === 0) issues.add(issue.missing(['body', FILES_FIELD], null));
	if (fileCount > maxFiles) {
		issues.add({
			loc: ['body', FILES_FIELD],
			msg: `List should have at most ${maxFiles} items after validation, not ${fileCount}`,
			type: 'too_long',
			ctx: { field_type: 'List', max_length: maxFiles, actual_length: fileCount },
		});
	}
	let dueDate: string | null = null;
	const rawDue = upload.fields[FIELD_DUE_DATE];
	if (rawDue !== undefined && rawDue !== '') {
		const us = parseIsoMicros(rawDue);
		if (us === null) issues.add(issue.datetime(['body', FIELD_DUE_DATE], rawDue));
		else dueDate = tsZulu(Math.floor(us / 1000));
	}
	issues.throwIfAny();

	const rawId = upload.fields[FIELD_USER_DEFINED_ID];
	const run = ctx.state.createRun({
		agent,
		createdBy: ctx.user.email,
		files: upload.files
			.filter((f) => f.field === FILES_FIELD)
			.map((f) => ({
				name: f.filename,
				size: f.size,
				contentType: f.contentType,
				sha256: f.sha256,
			})),
		userDefinedId: rawId !== undefined && rawId !== '' ? rawId : null,
		dueDate,
		createdMs: ctx.clock(), // after the upload, which may have taken a while
		knobs: ctx.knobs,
	});
	const late = ctx.knobs.lateListing;
	if (late && late.rate > 0 && chance(ctx.knobs.seed, 'late-listing', run.runId) < late.rate)
		run.listedMs = run.createdMs + late.delayMs;
	return ok(runView(run, run.createdMs, 'created', viewContext(ctx)));
}

function listRuns(ctx: RequestContext): EmuResponse {
	const issues = new Issues();
	const { pageNumber, pageSize } = queryPaging(ctx.query, issues);
	const runIdFilter = queryInt(ctx.query, 'run_id', {}, issues); // service note 14: integer
	issues.throwIfAny();
	const agent = requireAgent(ctx);
	const failing = ctx.knobs.failingRunLists?.[agent.id];
	if (failing !== undefined) {
		throw new ApiError(failing, {
			detail: `The Runs of Agent ${agent.id} cannot be listed (knobs.failingRunLists)`,
		});
	}
	// oldest first; a Run listed late (knobs.lateListing) is left out until its time comes
	let runs = ctx.state
		.runsOfAgent(agent.id)
		.filter((r) => r.listedMs === undefined || r.listedMs <= ctx.now)
		.filter((r) => !ctx.knobs.runsMissingFromLists?.includes(r.runId));
	if (runIdFilter !== undefined) runs = runs.filter((r) => r.runId === runIdFilter);
	else if (ctx.knobs.listOrder === 'newest-first') runs = [...runs].reverse();
	else if (ctx.knobs.listOrder === 'random') {
		// Gap 7: no order is promised. Deterministic per seed, stable across pages.
		const seed = ctx.knobs.seed;
		runs = runs
			.map((r) => ({ r, k: chance(seed, 'list-order', r.runId) }))
			.sort((a, b) => a.k - b.k)
			.map((x) => x.r);
	}
	const page = paginate(runs, pageNumber, pageSize);
	const views = page.items.map((r) => runView(r, ctx.now, 'summary', viewContext(ctx)));
	const shaped: unknown[] = [];
	if (ctx.knobs.runsListShape === 'flat') shaped.push(...views);
	else
		for (let i = 0; i < views.length; i += NESTED_CHUNK)
			shaped.push(views.slice(i, i + NESTED_CHUNK));
	return ok({
		runs: shaped,
		total_pages: page.totalPages,
		page_number: pageNumber,
		page_size: pageSize,
	});
}

async function templatedOutput(ctx: RequestContext): Promise<EmuResponse> {
	const body = bodyObject(ctx.body);
	const issues = new Issues();
	let templateId: number | undefined;
	const rawTemplate = body.output_template_id;
	if (rawTemplate === undefined || rawTemplate === null)
		issues.add(issue.missing(['body', 'output_template_id'], body));
	else if (typeof rawTemplate === 'number' && Number.isInteger(rawTemplate))
		templateId = rawTemplate;
	else if (typeof rawTemplate === 'string' && /^\d+$/.test(rawTemplate))
		templateId = Number(rawTemplate); // pydantic lax mode
	else
		issues.add(
			typeof rawTemplate === 'string'
				? issue.intParsing(['body', 'output_template_id'], rawTemplate)
				: issue.intType(['body', 'output_template_id'], rawTemplate),
		);
	let format: OutputFormat | undefined;
	if (body.format !== undefined && body.format !== null) {
		if (
			typeof body.format === 'string' &&
			(OUTPUT_FORMATS as readonly string[]).includes(body.format)
		)
			format = body.format as OutputFormat;
		else {
			const expected = "'pdf', 'docx', 'xlsx', 'xlsm' or 'csv'";
			issues.add({
				loc: ['body', 'format'],
				msg: `Input should be ${expected}`,
				type: 'enum',
				input: body.format,
				ctx: { expected },
			});
		}
	}
	issues.throwIfAny();

	const agent = requireAgent(ctx);
	const run = requireRun(ctx, agent.id);
	const template = agent.templates.find((t) => t.id === templateId);
	if (!template) throw notFound(`Output template ${templateId} not found`);
	const kind = templateKind(template.filename);
	if (kind === 'unknown') {
		throw validationError([
			issue.valueError(
				['body', 'output_template_id'],
				templateId,
				`template "${template.filename}" is neither a Word nor an Excel template`,
			),
		]);
	}
	const chosen = format ?? DEFAULT_FORMAT[kind]; // service note 24
	const allowed = FORMATS_BY_KIND[kind];
	if (!allowed.includes(chosen)) {
		throw validationError([
			issue.valueError(
				['body', 'format'],
				chosen,
				`format ${chosen} is not available for the ${kind === 'word' ? 'Word' : 'Excel'} template "${template.filename}" (allowed: ${allowed.join(', ')})`,
			),
		]);
	}
	const progress = runProgress(run, ctx.now);
	if (progress.status === 'running') throw conflict(`Run ${run.runId} is still running`); // service note 18

	const results = runResults(run, progress);
	const file = await renderTemplatedOutput(chosen, {
		templateFilename: template.filename,
		agentName: agent.name,
		runId: run.runId,
		status: progress.status,
		completed:
			progress.completedMs !== null && !run.completedNull ? tsZulu(progress.completedMs) : null,
		files: run.files.map((f) => f.name),
		rows: run.prompts.map((p) => {
			const r = results[p.name];
			return {
				prompt: p.name,
				value: r ? formatValue(r.value) : '',
				status: r?.status ?? 'missing',
			};
		}),
	});
	return {
		status: 200,
		headers: {
			'content-type': file.contentType,
			'content-disposition': contentDisposition(file.filename),
		},
		body: file.body,
	};
}

export const runRoutes: Route[] = [
	{
		method: 'POST',
		path: '/agents/:agent_id/runs',
		operation: 'runs.create',
		family: 'runs.create',
		body: 'multipart',
		handle: createRun,
	},
	{
		method: 'GET',
		path: '/agents/:agent_id/runs',
		operation: 'runs.list',
		family: 'runs',
		body: 'none',
		handle: listRuns,
	},
	{
		method: 'GET',
		path: '/agents/:agent_id/runs/:run_id',
		operation: 'runs.get',
		family: 'runs',
		body: 'none',
		handle(ctx) {
			const agent = requireAgent(ctx);
			const asOf = ctx.now - (ctx.knobs.singleReadLagMs ?? 0);
			const run = requireRun(ctx, agent.id);
			return ok(runView(run, Math.max(asOf, run.createdMs), 'full', viewContext(ctx)));
		},
	},
	{
		method: 'DELETE',
		path: '/agents/:agent_id/runs/:run_id',
		operation: 'runs.delete',
		family: 'runs',
		body: 'none',
		handle(ctx) {
			const agent = requireAgent(ctx);
			const run = requireRun(ctx, agent.id);
			ctx.state.removeRun(agent.id, run.runId); // the Run's files go with it
			return noContent();
		},
	},
	{
		method: 'POST',
		path: '/agents/:agent_id/runs/:run_id/templated-output',
		operation: 'runs.templated_output',
		family: 'templated-output',
		body: 'json',
		handle: templatedOutput,
	},
];
