/**
 * Picture downloads: GET /file/image/:pictureId (and /file/view/, the fallback
 * path), three sizes of real PNG bytes, the bot token, and the switch that
 * makes /file/image/ vanish.
 */
import { PICTURE_PIXELS, PNG_SIGNATURE, SEED_PICTURE_IDS } from '../../emulator/bot/pictures';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed();

/** A GET with this test's bot token, another `bearer`, or none (null). */
async function get(path: string, bearer?: string | null) {
	const res = await bed.call(path, bearer === undefined ? { auth: 'bot' } : { headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` } });
	return { status: res.status, type: res.headers.get('content-type'), length: res.headers.get('content-length'), bytes: res.bytes };
}

/** Width and height from the PNG's IHDR chunk. */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

describe('GET /file/image/:pictureId and /file/view/:pictureId', () => {
	const id = SEED_PICTURE_IDS.incidentScreenshot;

	it('answers PNG bytes in each size, medium by default, the same on both paths', async () => {
		const medium = await get(`/file/image/${id}`);
		expect({ status: medium.status, type: medium.type, length: Number(medium.length) }).toEqual({ status: 200, type: 'image/png', length: medium.bytes.length });
		expect(medium.bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
		expect(pngSize(medium.bytes)).toEqual({ width: PICTURE_PIXELS.medium, height: PICTURE_PIXELS.medium });
		for (const size of ['small', 'medium', 'large'] as const) {
			const image = await get(`/file/image/${id}?size=${size}`);
			const view = await get(`/file/view/${id}?size=${size}`);
			expect(pngSize(image.bytes)).toEqual({ width: PICTURE_PIXELS[size], height: PICTURE_PIXELS[size] });
			expect(view.bytes.equals(image.bytes)).toBe(true);
		}
		expect((await get(`/file/image/${id}?size=medium`)).bytes.equals(medium.bytes)).toBe(true);
		// Another picture has other bytes.
		expect((await get(`/file/image/${SEED_PICTURE_IDS.whiteboardPhoto}`)).bytes.equals(medium.bytes)).toBe(false);
	});

	it('refuses an unknown size, an unknown picture and a missing or wrong token', async () => {
		expect(await get(`/file/image/${id}?size=huge`)).toMatchObject({ status: 400 });
		const unknown = await get('/file/view/000000000000000000000000');
		expect({ status: unknown.status, body: JSON.parse(unknown.bytes.toString()) }).toEqual({
			status: 404,
			body: { code: 'picture_not_found', message: 'Picture 000000000000000000000000 not found' },
		});
		expect((await get(`/file/image/${id}`, null)).status).toBe(401);
		expect((await get(`/file/view/${id}`, 'wrong')).status).toBe(401);
	});

	it('answers 404 on /file/image/ when fileImageRoute is off, while /file/view/ still serves', async () => {
		bed.emulator.setConfig({ fileImageRoute: false });
		const gone = await get(`/file/image/${id}`);
		expect({ status: gone.status, body: JSON.parse(gone.bytes.toString()) }).toEqual({ status: 404, body: { code: 'not_found', message: `Cannot GET /file/image/${id}` } });
		expect((await get(`/file/view/${id}`)).status).toBe(200);
		bed.emulator.reset();
		expect((await get(`/file/image/${id}`, await bed.newBotToken())).status).toBe(200);
	});
});
