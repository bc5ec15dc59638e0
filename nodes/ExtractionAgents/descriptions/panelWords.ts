import type { INode } from 'n8n-workflow';
import { hasBehaviour } from './versions';

/**
 * The words the panel uses for an item's files, per node version: versions 1 and 1.1 speak
 * of binary fields, version 1.2 on of files. Run → Create's fields take their labels from
 * here and every message about files takes its words from here, so a message names fields
 * as the panel of the item's node version shows them (test/node/panel-words.test.ts).
 */
export interface FileWords {
	/** The field listing the fields to upload. */
	fieldList: string;
	/** Files → every file of the item. */
	all: string;
	/** Files → the fields named in `fieldList`. */
	specific: string;
	/** One field holding a file, in a sentence ("has no … "data""). */
	field: string;
	/** Several such fields, in a sentence. */
	fields: string;
	/** What the item carries, in a sentence ("has no files"). */
	files: string;
}

export const FILE_WORDS_BEFORE_1_2: FileWords = {
	fieldList: 'Input Binary Fields',
	all: 'All Binary Fields of the Item',
	specific: 'Specific Binary Fields',
	field: 'binary field',
	fields: 'binary fields',
	files: 'files (binary data)',
};

export const FILE_WORDS: FileWords = {
	fieldList: 'File Fields',
	all: 'All Files of the Item',
	specific: 'Specific File Fields',
	field: 'file field',
	fields: 'file fields',
	files: 'files',
};

/** The file words of the node's version. */
export function fileWordsOf(node: INode): FileWords {
	return hasBehaviour(node, 'allFilesByDefault') ? FILE_WORDS : FILE_WORDS_BEFORE_1_2;
}
