/**
 * python-multipart (Debian's python3-multipart), the parser behind FastAPI/Starlette
 * uploads, as a second real server parser for the upload encoding test. Installed with
 * apt when missing, like the editor test's Chromium; where that is impossible the test
 * is skipped with the reason printed.
 */
import { spawnSync } from 'node:child_process';
import { aptUnavailableReason, installWithApt } from '../../dev/harness/apt';

/** Debian's interpreter: the one apt's python3-multipart is installed for. */
const PYTHON = '/usr/bin/python3';

const PARSE_SCRIPT = `
import json, sys
import multipart
parts = []
def on_field(field):
    parts.append({'name': field.field_name.decode('utf-8'), 'value': (field.value or b'').decode('utf-8')})
def on_file(file):
    file.file_object.seek(0)
    parts.append({'name': file.field_name.decode('utf-8'), 'filename': file.file_name.decode('utf-8'), 'size': len(file.file_object.read())})
headers = {'Content-Type': sys.argv[1].encode('latin-1'), 'Content-Length': sys.argv[2]}
multipart.parse_form(headers, sys.stdin.buffer, on_field, on_file)
print(json.dumps(parts))
`;

export interface PythonPart {
	name: string;
	filename?: string;
	size?: number;
	value?: string;
}

function importable(): boolean {
	return spawnSync(PYTHON, ['-c', 'import multipart'], { stdio: 'ignore' }).status === 0;
}

/** Undefined when python-multipart can be used (installing it first if needed), else why not. */
export async function ensurePythonMultipart(): Promise<string | undefined> {
	if (importable()) return undefined;
	const unavailable = aptUnavailableReason();
	if (unavailable)
		return `python3-multipart is not installed and ${unavailable} to install it (as root: apt-get install -y python3-multipart)`;
	try {
		await installWithApt('python3-multipart', 'python3-multipart');
	} catch (error) {
		return `installing python3-multipart failed: ${(error as Error).message}`;
	}
	return importable()
		? undefined
		: `apt installed python3-multipart but ${PYTHON} cannot import it`;
}

/** The parts python-multipart reads from a multipart/form-data body. */
export function parseWithPythonMultipart(body: Buffer, contentType: string): PythonPart[] {
	const result = spawnSync(PYTHON, ['-c', PARSE_SCRIPT, contentType, String(body.length)], {
		input: body,
	});
	if (result.status !== 0)
		throw new Error(`python-multipart failed: ${result.stderr.toString('utf8')}`);
	return JSON.parse(result.stdout.toString('utf8')) as PythonPart[];
}
