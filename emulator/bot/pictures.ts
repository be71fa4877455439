/**
 * Pictures users "sent" in delivered `picture` events, downloadable through
 * GET /file/image/:pictureId and /file/view/:pictureId in three sizes. The bytes
 * are real PNGs (a solid colour, a different pixel size per size option),
 * generated on first request and kept.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

export const PICTURE_SIZES = ['small', 'medium', 'large'] as const;
export type PictureSize = (typeof PICTURE_SIZES)[number];

/** Edge length in pixels of each size option. */
export const PICTURE_PIXELS: Record<PictureSize, number> = { small: 64, medium: 240, large: 960 };

/** Pictures that exist from the start (as if users had sent them earlier). */
export const SEED_PICTURE_IDS = {
	/** somchai's screenshot in the Incident Room. */
	incidentScreenshot: '64b7f0a1c2d3e4f5a6b7f001',
	/** nattaya's photo in her direct chat with the bot. */
	whiteboardPhoto: '64b7f0a1c2d3e4f5a6b7f002',
} as const;

export interface Picture {
	id: string;
	fileName: string;
	/** RGB colour of every pixel. */
	rgb: [number, number, number];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});

function crc32(data: Buffer): number {
	let c = 0xffffffff;
	for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length, 0);
	head.write(type, 4, 'ascii');
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
	return Buffer.concat([head, data, crc]);
}

/** The 8 bytes every PNG file starts with. */
export const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

/**
 * `length` bytes that start as a PNG does, for sending a picture: the emulator
 * judges a picture by its declared type and size and keeps its hash, it never
 * decodes it.
 */
export function pngBytes(length: number): Buffer {
	return Buffer.concat([PNG_SIGNATURE, Buffer.alloc(Math.max(0, length - PNG_SIGNATURE.length), 7)]);
}

/** A size x size PNG (8-bit RGB, no interlace) of one colour. */
export function solidPng(size: number, [r, g, b]: [number, number, number]): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(size, 0);
	header.writeUInt32BE(size, 4);
	header.set([8, 2, 0, 0, 0], 8);
	const row = Buffer.alloc(1 + size * 3);
	for (let x = 0; x < size; x++) row.set([r, g, b], 1 + x * 3);
	const raw = Buffer.concat(Array.from({ length: size }, () => row));
	return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A colour derived from the id, so different pictures have different bytes. */
function colourOf(id: string): [number, number, number] {
	const d = createHash('sha256').update(id).digest();
	return [d[0], d[1], d[2]];
}

export class PictureStore {
	private readonly pictures = new Map<string, Picture>();
	private readonly bytes = new Map<string, Buffer>();

	constructor() {
		this.reset();
	}

	reset(): void {
		this.pictures.clear();
		this.bytes.clear();
		this.add(SEED_PICTURE_IDS.incidentScreenshot, 'screenshot.png');
		this.add(SEED_PICTURE_IDS.whiteboardPhoto, 'whiteboard.png');
	}

	add(id: string, fileName: string): Picture {
		const picture: Picture = { id, fileName, rgb: colourOf(id) };
		this.pictures.set(id, picture);
		return picture;
	}

	get(id: string): Picture | undefined {
		return this.pictures.get(id);
	}

	/** The PNG bytes of a picture in one size, or undefined for an unknown id. */
	png(id: string, size: PictureSize): Buffer | undefined {
		const picture = this.pictures.get(id);
		if (!picture) return undefined;
		const key = `${id}:${size}`;
		let png = this.bytes.get(key);
		if (!png) {
			png = solidPng(PICTURE_PIXELS[size], picture.rgb);
			this.bytes.set(key, png);
		}
		return png;
	}
}
