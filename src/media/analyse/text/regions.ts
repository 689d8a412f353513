// Where text is in a picture (boxes in its pixels), for redact: ["text"] and anything else
// that needs the boxes without what they say. Less certain lines count too: a blurred patch
// of texture costs little, a readable name left behind costs much.
import { readText, type OcrOptions } from './ocr.ts';
import type { Box } from './types.ts';

export async function findTextRegions(img: { data: Buffer; width: number; height: number; channels: number }, opts: OcrOptions = {}): Promise<{ x: number; y: number; width: number; height: number }[]> {
  const reading = await readText(img, { purpose: 'redact', ...opts });
  return reading.regions.map((r): Box => ({ ...r.box }));
}
