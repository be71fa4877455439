/**
 * CLI: runs the emulator for manual testing and the n8n demo.
 *   PORT (default 8787), HOST (default 127.0.0.1)
 *   EMULATOR_FIXED_CREDENTIALS=0 for random credentials (default: well-known dev ones)
 *   RATE_LIMIT=capacity/refillPerSecond (e.g. 5/1), PAGINATION_MODE=strapi|nestjs|none|inconsistent
 *   PAGE_CAP=n (the service serves at most n items a page, whatever pagination[pageSize] asks)
 *   MAX_PAGE_SIZE=n (the service refuses a pagination[pageSize] above n with 422; default 100)
 *   DELETE_RESPONSE=empty|json, MAX_UPLOAD_BYTES, TOKEN_TTL_SECONDS, EMULATOR_DATA_DIR
 *   WEBHOOK_URL (prefilled on the play page GET /__emulator/), REPLY_TOKEN_TTL_SECONDS,
 *   MAX_MESSAGE_FILE_BYTES, V1_SEND_ANSWER=message|status, TEXT_REPLY_JSON=refuse|accept
 */
import { removeTempFolders } from './common/tempFolders';
import { startEmulator, type Emulator, type StartOptions } from './server';
import { DELETE_RESPONSES, PAGINATION_MODES, TEXT_REPLY_JSON, V1_SEND_ANSWERS, type EmulatorConfig } from './types';

export const DEV_CREDENTIALS = {
	apiKey: 'dev-api-key',
	jwtSecret: 'dev-jwt-secret',
	clientId: 'dev-client',
	clientSecret: 'dev-secret',
} as const;

function fail(message: string): never {
	console.error(`emulator: ${message}`);
	process.exit(2);
}

function intEnv(name: string): number | undefined {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return undefined;
	const n = Number(raw);
	if (!Number.isInteger(n) || n < 0) fail(`${name} must be a non-negative integer, got ${raw}`);
	return n;
}

function oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return undefined;
	if (!allowed.includes(raw as T)) fail(`${name} must be one of ${allowed.join(', ')}, got ${raw}`);
	return raw as T;
}

function rateLimitEnv(): EmulatorConfig['rateLimit'] | undefined {
	const raw = process.env.RATE_LIMIT;
	if (!raw) return undefined;
	const m = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(raw.trim());
	if (!m || Number(m[1]) < 1) fail(`RATE_LIMIT must look like capacity/refillPerSecond (e.g. 5/1), got ${raw}`);
	return { capacity: Number(m[1]), refillPerSecond: Number(m[2]) };
}

/** A page size from the environment: a whole number of at least 1, or undefined. */
function pageSizeEnv(name: string): number | undefined {
	const n = intEnv(name);
	if (n !== undefined && n < 1) fail(`${name} must be at least 1, got ${n}`);
	return n;
}

export function optionsFromEnv(): StartOptions {
	const fixed = process.env.EMULATOR_FIXED_CREDENTIALS !== '0';
	return {
		...(fixed ? DEV_CREDENTIALS : {}),
		port: intEnv('PORT') ?? 8787,
		host: process.env.HOST || '127.0.0.1',
		rateLimit: rateLimitEnv(),
		paginationMode: oneOf('PAGINATION_MODE', PAGINATION_MODES),
		pageCap: pageSizeEnv('PAGE_CAP'),
		maxPageSize: pageSizeEnv('MAX_PAGE_SIZE'),
		deleteResponse: oneOf('DELETE_RESPONSE', DELETE_RESPONSES),
		maxUploadBytes: intEnv('MAX_UPLOAD_BYTES'),
		tokenTtlSeconds: intEnv('TOKEN_TTL_SECONDS'),
		dataDir: process.env.EMULATOR_DATA_DIR || undefined,
		webhookUrl: process.env.WEBHOOK_URL || undefined,
		replyTokenTtlSeconds: intEnv('REPLY_TOKEN_TTL_SECONDS'),
		maxMessageFileBytes: intEnv('MAX_MESSAGE_FILE_BYTES'),
		v1SendAnswer: oneOf('V1_SEND_ANSWER', V1_SEND_ANSWERS),
		textReplyJson: oneOf('TEXT_REPLY_JSON', TEXT_REPLY_JSON),
	};
}

async function main(): Promise<void> {
	const options = optionsFromEnv();
	// Drop unset keys so the server's defaults apply.
	for (const key of Object.keys(options) as Array<keyof StartOptions>) if (options[key] === undefined) delete options[key];

	// Listening before the start: a Ctrl-C while the emulator starts must still remove the data folder it made.
	let started: Emulator | undefined;
	let closing = false;
	const shutdown = (signal: string) => {
		if (closing) return;
		closing = true;
		process.stdout.write(`\n${signal} received, stopping.\n`);
		void (started?.close() ?? Promise.resolve())
			.catch((err: unknown) => {
				console.error(err);
				process.exitCode = 1;
			})
			.finally(() => {
				removeTempFolders();
				process.exit();
			});
	};
	process.once('SIGINT', () => shutdown('SIGINT'));
	process.once('SIGTERM', () => shutdown('SIGTERM'));

	const emulator = await startEmulator(options);
	started = emulator;
	const c = emulator.credentials;
	const admin = `${emulator.url}/__emulator`;
	const limit = emulator.config.rateLimit;
	process.stdout.write(
		[
			'Workplace service emulator is running.',
			'',
			`Base URL:       ${emulator.url}`,
			`API key:        ${c.apiKey}`,
			`JWT (30 days):  ${c.jwt}`,
			`Client ID:      ${c.clientId}`,
			`Client secret:  ${c.clientSecret}`,
			`Rate limit:     ${limit ? `${limit.capacity} burst, ${limit.refillPerSecond}/s per credential` : 'off'}`,
			`Pagination:     ${emulator.config.paginationMode}, pageSize up to ${emulator.config.maxPageSize}${emulator.config.pageCap === null ? '' : `, at most ${emulator.config.pageCap} items a page`}`,
			'',
			`Play a user:    ${admin}/   (send a message, tap a postback, join, tap the bot's buttons; webhook ${emulator.config.webhookUrl ?? 'not set: WEBHOOK_URL'})`,
			'',
			'Admin routes:',
			`  GET    ${admin}/credentials`,
			`  GET    ${admin}/log            DELETE ${admin}/log`,
			`  POST   ${admin}/faults         DELETE ${admin}/faults   (JSON rule, e.g. {"path":"/api/v1/knowledge*","action":{"kind":"status","status":503}})`,
			`  POST   ${admin}/reset`,
			`  POST   ${admin}/tokens/expire`,
			`  GET    ${admin}/messages       DELETE ${admin}/messages (what the bot sent; ?uid= ?gid= ?tid=)`,
			`  POST   ${admin}/events         (play a user: {"url":"…","type":"message","text":"hi"}; count for a batch)`,
			`  POST   ${admin}/reply-tokens/expire`,
			`  GET    ${admin}/config         PATCH  ${admin}/config   (e.g. {"paginationMode":"none"}, {"pageCap":10}, {"v2ReplyRoute":false})`,
			'',
			'Ctrl+C to stop.',
			'',
		].join('\n'),
	);
}

if (require.main === module) {
	main().catch((err) => {
		console.error(err);
		process.exit(1);
	});
}
