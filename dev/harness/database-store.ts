/**
 * A stand-in of n8n's database binary data store (N8N_DEFAULT_BINARY_DATA_MODE=database, the
 * default of n8n 2.x in queue mode). n8n-core ships no such manager: the n8n server registers
 * its own (`DatabaseManager` in n8n's `dist/binary-data/database.manager.js`, table
 * `binary_data`) with `BinaryDataService.setManager('database', …)`. This one keeps the rows
 * in memory and otherwise does what that manager does: a file id is a fresh uuid that names no
 * workflow or execution (ids are `database:<uuid>`), a stream is the whole stored buffer, and
 * the metadata is name, type and size in bytes.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';

import type * as N8nCore from 'n8n-core';
import { UnexpectedError } from 'n8n-workflow';

type Manager = N8nCore.BinaryData.Manager;
type FileLocation = N8nCore.BinaryData.FileLocation;
type PreWriteMetadata = N8nCore.BinaryData.PreWriteMetadata;

interface StoredRow {
	sourceType: string;
	sourceId: string;
	data: Buffer;
	mimeType?: string;
	fileName?: string;
}

/** n8n's manager names a file stored before its execution exists (a webhook's) by this source id. */
const TEMP_EXECUTION_ID = 'temp';

async function toBuffer(bufferOrStream: Buffer | Readable): Promise<Buffer> {
	if (Buffer.isBuffer(bufferOrStream)) return bufferOrStream;
	const chunks: Buffer[] = [];
	for await (const chunk of bufferOrStream) chunks.push(Buffer.from(chunk as Buffer));
	return Buffer.concat(chunks);
}

export class InMemoryDatabaseStore implements Manager {
	readonly rows = new Map<string, StoredRow>();

	async init(): Promise<void> {}

	async store(
		location: FileLocation,
		bufferOrStream: Buffer | Readable,
		metadata: PreWriteMetadata,
	): Promise<{ fileId: string; fileSize: number }> {
		const data = await toBuffer(bufferOrStream);
		const fileId = randomUUID();
		this.rows.set(fileId, { ...this.sourceOf(location), data, ...metadata });
		return { fileId, fileSize: data.length };
	}

	getPath(fileId: string): string {
		return `database://${fileId}`;
	}

	async getAsBuffer(fileId: string): Promise<Buffer> {
		return this.row(fileId).data;
	}

	async getAsStream(fileId: string): Promise<Readable> {
		return Readable.from(this.row(fileId).data);
	}

	async getMetadata(fileId: string): Promise<N8nCore.BinaryData.Metadata> {
		const { fileName, mimeType, data } = this.row(fileId);
		return { fileName, mimeType, fileSize: data.length };
	}

	async deleteMany(locations: FileLocation[]): Promise<void> {
		const executionIds = new Set(
			locations.flatMap((location) =>
				location.type === 'execution' ? [location.executionId] : [],
			),
		);
		for (const [fileId, row] of this.rows) {
			if (row.sourceType === 'execution' && executionIds.has(row.sourceId))
				this.rows.delete(fileId);
		}
	}

	async deleteManyByFileId(ids: string[]): Promise<void> {
		for (const id of ids) this.rows.delete(id);
	}

	async copyByFileId(targetLocation: FileLocation, sourceFileId: string): Promise<string> {
		const fileId = randomUUID();
		this.rows.set(fileId, { ...this.row(sourceFileId), ...this.sourceOf(targetLocation) });
		return fileId;
	}

	async copyByFilePath(
		targetLocation: FileLocation,
		sourcePath: string,
		metadata: PreWriteMetadata,
	): Promise<{ fileId: string; fileSize: number }> {
		return await this.store(targetLocation, await readFile(sourcePath), metadata);
	}

	async rename(oldFileId: string, newFileId: string): Promise<void> {
		this.rows.set(newFileId, this.row(oldFileId));
		this.rows.delete(oldFileId);
	}

	private row(fileId: string): StoredRow {
		const row = this.rows.get(fileId);
		if (!row) throw new UnexpectedError(`No binary data row with file id ${fileId}`);
		return row;
	}

	private sourceOf(location: FileLocation): { sourceType: string; sourceId: string } {
		if (location.type === 'execution') {
			return { sourceType: 'execution', sourceId: location.executionId || TEMP_EXECUTION_ID };
		}
		return { sourceType: location.sourceType ?? 'custom', sourceId: location.sourceId ?? '' };
	}
}
