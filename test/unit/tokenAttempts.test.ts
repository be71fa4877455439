/**
 * What a bot token request sends first and after each refusal
 * (shared/transport/tokenAttempts.ts); the engine-level proof is in
 * test/nodes/bot.test.ts, against an emulator set to each way.
 */
import { firstTokenAttempt, nextTokenAttempt, type TokenAttempt } from '../../shared/transport/tokenAttempts';

const basic = (scope: string): TokenAttempt => ({ clientAuth: 'basic', scope });
const form = (scope: string): TokenAttempt => ({ clientAuth: 'form', scope });

describe('firstTokenAttempt', () => {
	it.each<[unknown, TokenAttempt]>([
		['bot profile', basic('bot profile')],
		['  bot   profile ', basic('bot profile')],
		['bot', basic('bot')],
		['', basic('bot profile')],
		[undefined, basic('bot profile')],
		['bot admin', basic('bot admin')],
	])('scope %j: %j', (scope, attempt) => {
		expect(firstTokenAttempt(scope)).toEqual(attempt);
	});
});

describe('nextTokenAttempt', () => {
	it.each<[TokenAttempt, number, unknown, TokenAttempt | undefined]>([
		// The scope refused: the public pages' `bot`, from the documents' scope only.
		[basic('bot profile'), 400, 'invalid_scope', basic('bot')],
		[form('bot profile'), 400, 'invalid_scope', form('bot')],
		[basic('bot'), 400, 'invalid_scope', undefined],
		[basic('bot admin'), 400, 'invalid_scope', undefined],
		// The client refused by Basic: once more with the form's fields.
		[basic('bot profile'), 401, 'invalid_client', form('bot profile')],
		[basic('bot'), 401, undefined, form('bot')],
		[basic('bot profile'), 400, 'invalid_request', form('bot profile')],
		[basic('bot profile'), 400, undefined, form('bot profile')],
		[form('bot profile'), 401, 'invalid_client', undefined],
		[form('bot'), 400, 'invalid_request', undefined],
		// Anything else is the answer.
		[basic('bot profile'), 403, 'access_denied', undefined],
		[basic('bot profile'), 429, undefined, undefined],
		[basic('bot profile'), 500, undefined, undefined],
		[basic('bot profile'), 302, undefined, undefined],
	])('after %j refused with %i %j: %j', (attempt, status, error, next) => {
		expect(nextTokenAttempt(attempt, status, error)).toEqual(next);
	});

	it('asks at most three times, each request different', () => {
		const seen: TokenAttempt[] = [];
		let attempt: TokenAttempt | undefined = firstTokenAttempt('bot profile');
		// The worst service: every refusal one that allows another try.
		const refusals: Array<[number, string]> = [[400, 'invalid_scope'], [401, 'invalid_client'], [400, 'invalid_scope'], [401, 'invalid_client']];
		for (const [status, error] of refusals) {
			if (!attempt) break;
			seen.push(attempt);
			attempt = nextTokenAttempt(attempt, status, error);
		}
		expect(seen).toEqual([basic('bot profile'), basic('bot'), form('bot')]);
		expect(new Set(seen.map((a) => JSON.stringify(a))).size).toBe(seen.length);
	});
});
