// The text_regions asset: the picture downscaled, with a rectangle around each line of text
// found (what it says is not drawn).
import { drawBoxes } from '../boxes-asset.ts';
import type { AssetFile } from '../detector.ts';
import type { RawImage, TextRegion } from './types.ts';

export function drawTextRegions(img: RawImage, regions: TextRegion[], outDir: string): Promise<AssetFile> {
  return drawBoxes(img, regions.map((r) => r.box), outDir, { category: 'text_regions', file: 'text-regions.jpg', colour: '#00c2ff' });
}
