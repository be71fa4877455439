/**
 * Token-bucket rate limiter, one bucket per credential, so a client that ignores
 * Retry-After keeps getting 429s while a well-behaved one gets through.
 */
import type { FastifyRequest } from 'fastify';
import type { EmulatorConfig } from '../types';

interface Bucket {
	tokens: number;
	updated: number;
}

export interface RateDecision {
	allowed: boolean;
	/** Whole seconds until the next token (only when refused). */
	retryAfterSeconds: number;
}

/** The credential a request is counted against: API key, then Authorization, then client IP. */
export function credentialOf(request: FastifyRequest): string {
	const key = request.headers['x-api-key'];
	if (typeof key === 'string' && key) return `key:${key}`;
	const auth = request.headers.authorization;
	if (typeof auth === 'string' && auth) return `auth:${auth}`;
	return `ip:${request.ip}`;
}

export class RateLimiter {
	private buckets = new Map<string, Bucket>();

	constructor(private readonly config: EmulatorConfig, private readonly now: () => number = Date.now) {}

	reset(): void {
		this.buckets.clear();
	}

	/** Takes one token for the credential; always allows when the limiter is off. */
	take(credential: string): RateDecision {
		const limit = this.config.rateLimit;
		if (!limit) return { allowed: true, retryAfterSeconds: 0 };
		const now = this.now();
		let bucket = this.buckets.get(credential);
		if (!bucket) {
			bucket = { tokens: limit.capacity, updated: now };
			this.buckets.set(credential, bucket);
		}
		const elapsed = (now - bucket.updated) / 1000;
		bucket.tokens = Math.min(limit.capacity, bucket.tokens + elapsed * limit.refillPerSecond);
		bucket.updated = now;
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return { allowed: true, retryAfterSeconds: 0 };
		}
		const wait = limit.refillPerSecond > 0 ? (1 - bucket.tokens) / limit.refillPerSecond : 3600;
		return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait)) };
	}
}
