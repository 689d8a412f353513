// The faces asset: the picture downscaled, with a rectangle around each face found.
import { drawBoxes } from '../boxes-asset.ts';
import type { AssetFile } from '../detector.ts';
import type { FaceBox, RawImage } from './detect.ts';

export function drawFaces(img: RawImage, faces: FaceBox[], outDir: string): Promise<AssetFile> {
  return drawBoxes(img, faces, outDir, { category: 'faces', file: 'faces.jpg', colour: '#ff2d55' });
}
