// Face detection on decoded pixels. face_sensitivity picks the detector and its threshold:
// below 0.5 the tiny detector (fast), from 0.5 SSD MobileNet v1 (thorough, finds smaller and
// turned faces); a higher sensitivity lowers the score a face needs.
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

export async function detectFaces(img: RawImage, sensitivity: number): Promise<FaceDetection> {
  const faceapi = await faceApi();
  const { model, threshold } = faceSettings(sensitivity);
  const rgb = toRgb(img);
  const tensor = faceapi.tf.tensor3d(rgb, [img.height, img.width, 3], 'int32');
  try {
    const options = model === 'tiny_face_detector' ? new faceapi.TinyFaceDetectorOptions({ inputSize: TINY_INPUT, scoreThreshold: threshold }) : new faceapi.SsdMobilenetv1Options({ minConfidence: threshold, maxResults: 200 });
    const found = await faceapi.detectAllFaces(tensor as never, options);
    const faces = found.map((d) => clip(d.box, d.score, img.width, img.height)).filter((b) => b.width > 0 && b.height > 0);
    return { model, threshold, faces };
  } finally {
    tensor.dispose();
  }
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
