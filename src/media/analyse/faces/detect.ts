// Face detection on decoded pixels. face_sensitivity picks the detector and its threshold:
// below 0.5 the tiny detector (fast), from 0.5 SSD MobileNet v1 (thorough, finds smaller and
// turned faces); a higher sensitivity lowers the score a face needs.
import sharp from 'sharp';
import { faceApi } from './model.ts';

export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The detector's confidence, 0..1. */
  score: number;
}

export type FaceModel = 'tiny_face_detector' | 'ssd_mobilenet_v1';

export interface FaceDetection {
  model: FaceModel;
  threshold: number;
  faces: FaceBox[];
}

import type { RawImage } from '../text/types.ts';

export type { RawImage };

/** The detector and score threshold a sensitivity (0..1) stands for. */
export function faceSettings(sensitivity: number): { model: FaceModel; threshold: number } {
  const s = Math.min(1, Math.max(0, sensitivity));
  // tiny's scores for real faces run lower than SSD's (0.5-0.9 against 0.6-1.0 on the demo
  // photos), so its threshold starts lower: low (0.3) is 0.43, medium (0.5, SSD) 0.5, high 0.42
  const t = s < 0.5 ? 0.55 - 0.4 * s : 0.7 - 0.4 * s;
  return { model: s < 0.5 ? 'tiny_face_detector' : 'ssd_mobilenet_v1', threshold: Math.round(t * 100) / 100 };
}

/** Tiny's input size: a multiple of 32; larger finds smaller faces. */
const TINY_INPUT = 608;
/**
 * The longest side handed to the detectors. face-api pads its input to a square of floats in
 * tfjs's wasm memory before it scales it to 512 or 608 px, so a long side costs its square:
 * 16383 px wide is 3.2 GB and kills the worker. 4096 px (201 MB) is a 12 MP photo's cost, kept
 * whole; longer pictures are scaled down first, which the detectors' own 512-608 px input never sees.
 */
export const FACES_MAX_SIDE = 4096;

export async function detectFaces(img: RawImage, sensitivity: number): Promise<FaceDetection> {
  const faceapi = await faceApi();
  const { model, threshold } = faceSettings(sensitivity);
  const scale = Math.min(1, FACES_MAX_SIDE / Math.max(img.width, img.height));
  const input = scale < 1 ? await scaled(img, scale) : { rgb: toRgb(img), width: img.width, height: img.height };
  const tensor = faceapi.tf.tensor3d(input.rgb, [input.height, input.width, 3], 'int32');
  try {
    const options = model === 'tiny_face_detector' ? new faceapi.TinyFaceDetectorOptions({ inputSize: TINY_INPUT, scoreThreshold: threshold }) : new faceapi.SsdMobilenetv1Options({ minConfidence: threshold, maxResults: 200 });
    const found = await faceapi.detectAllFaces(tensor as never, options);
    const back = (n: number, size: number, full: number) => (size === full ? n : (n * full) / size);
    const faces = found
      .map((d) => ({ x: back(d.box.x, input.width, img.width), y: back(d.box.y, input.height, img.height), width: back(d.box.width, input.width, img.width), height: back(d.box.height, input.height, img.height), score: d.score }))
      .map((b) => clip(b, b.score, img.width, img.height))
      .filter((b) => b.width > 0 && b.height > 0);
    return { model, threshold, faces };
  } finally {
    tensor.dispose();
  }
}

/** The picture as RGB, its sides times `scale` (at least 1 px). */
async function scaled(img: RawImage, scale: number): Promise<{ rgb: Uint8Array; width: number; height: number }> {
  const width = Math.max(1, Math.round(img.width * scale));
  const height = Math.max(1, Math.round(img.height * scale));
  const { data, width: w, height: h, channels } = img;
  const raw = await sharp(Buffer.from(data.buffer, data.byteOffset, data.length), { raw: { width: w, height: h, channels: channels as 1 | 2 | 3 | 4 }, limitInputPixels: false })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { rgb: toRgb({ data: new Uint8Array(raw.data.buffer, raw.data.byteOffset, raw.data.length), width, height, channels: raw.info.channels }), width, height };
}

/** Interleaved RGB: grey is repeated, alpha dropped (a face behind transparency is still a face). */
function toRgb(img: RawImage): Uint8Array {
  const { data, width, height, channels } = img;
  if (channels === 3) return data;
  const out = new Uint8Array(width * height * 3);
  for (let i = 0, o = 0; o < out.length; i += channels, o += 3) {
    const grey = channels <= 2;
    out[o] = data[i];
    out[o + 1] = grey ? data[i] : data[i + 1];
    out[o + 2] = grey ? data[i] : data[i + 2];
  }
  return out;
}

function clip(b: { x: number; y: number; width: number; height: number }, score: number, w: number, h: number): FaceBox {
  const x = Math.max(0, Math.floor(b.x));
  const y = Math.max(0, Math.floor(b.y));
  const x2 = Math.min(w, Math.ceil(b.x + b.width));
  const y2 = Math.min(h, Math.ceil(b.y + b.height));
  return { x, y, width: Math.max(0, x2 - x), height: Math.max(0, y2 - y), score: Math.round(score * 1000) / 1000 };
}
