/**
 * How files reach Extract Data From Files (node version 1.2) in real n8n, with only the Agent set:
 *
 * (l) Gmail-shaped emails: a Code node gives two items as n8n's Gmail node does (Simplify off,
 *     attachments downloaded): `attachment_0` and `attachment_1` PDFs and the logo its HTML shows
 *     inline. Each email becomes one Run with its two PDFs; the logo is left out.
 * (m) A link: the webhook's body gives the address of a 200 MB file served by the test on
 *     loopback; the node streams it into the upload. The n8n process's RSS is sampled before and
 *     during the execution; the growth is printed beside the goal (64 MiB) and must stay well under
 *     the file's size (a file held in memory would add 200 MiB).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	samplePdf,
	webhook,
	workflow,
} from '../../dev/n8n/workflows';
import type { NodeJson, WorkflowJson } from '../../dev/n8n/workflows';

export const GMAIL_SHAPED = {
	workflowId: 'eaE2eGmailShaped1',
	webhookPath: 'e2e-gmail-shaped',
	emails: [
		{ subject: 'Invoices October', pdfs: ['INV-1001.pdf', 'INV-1002.pdf'] },
		{ subject: 'Invoices November', pdfs: ['INV-1101.pdf', 'INV-1102.pdf'] },
	],
	logo: 'image001.png',
};

export const LINK_UPLOAD = {
	workflowId: 'eaE2eLinkUpload1',
	webhookPath: 'e2e-link-upload',
	bytes: 200 * 1024 * 1024,
	fileName: 'scanned-archive.pdf',
};

const credentials = { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
const to = (name: string) => [{ node: name, type: 'main' as const, index: 0 }];

function extractNode(parameters: Record<string, unknown>): NodeJson {
	return {
		id: `extract-${Object.keys(parameters).length}-files-in`,
		name: 'Extract Data From Files',
		type: ACTION_TYPE,
		typeVersion: 1.2,
		position: [440, 0],
		parameters: {
			resource: 'run',
			operation: 'create',
			agent: { __rl: true, mode: 'id', value: '1' },
			...parameters,
		},
		credentials,
	};
}

function onReceived(node: NodeJson): NodeJson {
	node.parameters.responseMode = 'onReceived';
	return node;
}

/** (l): Webhook → Code (two emails as Gmail gives them) → Extract Data From Files, defaults. */
export function gmailShapedWorkflow(): WorkflowJson {
	const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex').toString('base64');
	const emails = GMAIL_SHAPED.emails.map((email) => ({
		subject: email.subject,
		pdfs: email.pdfs.map((name) => ({
			name,
			base64: samplePdf(`${email.subject}: ${name}`).toString('base64'),
		})),
	}));
	const jsCode = [
		`const emails = ${JSON.stringify(emails)};`,
		`const logo = ${JSON.stringify({ name: GMAIL_SHAPED.logo, base64: png })};`,
		'return emails.map((email) => {',
		'  const binary = {};',
		"  email.pdfs.forEach((pdf, i) => { binary[`attachment_${i}`] = { data: pdf.base64, mimeType: 'application/pdf', fileName: pdf.name, fileExtension: 'pdf' }; });",
		"  binary[`attachment_${email.pdfs.length}`] = { data: logo.base64, mimeType: 'image/png', fileName: logo.name, fileExtension: 'png' };",
		'  return { json: { subject: email.subject, html: `<p>Invoices attached.</p><img src="cid:ii_logo01" alt="${logo.name}">` }, binary };',
		'});',
	].join('\n');
	return workflow(
		GMAIL_SHAPED.workflowId,
		'E2E: Gmail-shaped emails, Extract Data From Files with only the Agent set',
		[
			onReceived(
				webhook(
					'Webhook',
					GMAIL_SHAPED.webhookPath,
					'5b0c8a43-5a8e-4c55-9f39-0e2e0000000b',
					'allEntries',
				),
			),
			{
				id: 'gmail-shaped-code',
				name: 'Two emails',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode },
			},
			extractNode({}),
		],
		{
			Webhook: { main: [to('Two emails')] },
			'Two emails': { main: [to('Extract Data From Files')] },
		},
	);
}

/** (m): Webhook (body `{ url }`) → Extract Data From Files, Files: Links. */
export function linkUploadWorkflow(): WorkflowJson {
	return workflow(
		LINK_UPLOAD.workflowId,
		'E2E: a 200 MB file from a link, streamed into the upload',
		[
			onReceived(
				webhook(
					'Webhook',
					LINK_UPLOAD.webhookPath,
					'5b0c8a43-5a8e-4c55-9f39-0e2e0000000c',
					'allEntries',
				),
			),
			extractNode({ binarySource: 'links', fileLinks: '={{ $json.body.url }}' }),
		],
		{ Webhook: { main: [to('Extract Data From Files')] } },
	);
}

/** A file server on loopback giving LINK_UPLOAD.bytes of generated data, with its length. */
export async function startLargeFileServer(): Promise<{ url: string; stop: () => Promise<void> }> {
	const chunk = Buffer.alloc(1024 * 1024, 0x25);
	const server = http.createServer((req, res) => {
		res.writeHead(200, {
			'Content-Type': 'application/pdf',
			'Content-Length': LINK_UPLOAD.bytes,
			'Content-Disposition': `attachment; filename="${LINK_UPLOAD.fileName}"`,
		});
		if (req.method === 'HEAD') {
			res.end();
			return;
		}
		let sent = 0;
		const pump = () => {
			while (sent < LINK_UPLOAD.bytes) {
				sent += chunk.length;
				if (!res.write(chunk)) {
					res.once('drain', pump);
					return;
				}
			}
			res.end();
		};
		res.on('close', () => (sent = Infinity));
		pump();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/archive/download`,
		stop: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/** RSS of a process (bytes), from /proc. */
export function rssOf(pid: number | undefined): number {
	if (!pid) return 0;
	try {
		const match = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Number(match[1]) * 1024 : 0;
	} catch {
		return 0;
	}
}
