/**
 * What the service accepts in one Run: 300 files, each at most 250 MB, meaning
 * 250,000,000 bytes (docs/design/service-notes.md #16). Every message that states a limit is
 * built from these.
 */
export const MAX_FILES_PER_RUN = 300;
export const MAX_FILE_BYTES = 250_000_000;

/** "250,000,000 bytes" */
export const formatBytes = (bytes: number): string => `${bytes.toLocaleString('en-US')} bytes`;

/** "250 MB" */
export const formatMegabytes = (bytes: number): string =>
	`${Math.round(bytes / 1_000_000).toLocaleString('en-US')} MB`;
