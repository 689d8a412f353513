// Output size for a width/height/fit request, with sharp's meaning of each fit, for the
// backends that are not sharp (ffmpeg). `even` rounds down to even sizes, which 4:2:0 needs.
import type { Fit } from './options.ts';

export interface Geometry {
  /** Size the picture is scaled to. */
  scaleW: number;
  scaleH: number;
  /** Final frame size: smaller than the scaled size means a centred crop, larger a centred pad. */
  outW: number;
  outH: number;
  /** The request asked for more than the source has and upscale was off. */
  notEnlarged: boolean;
}

export function fitGeometry(
  srcW: number,
  srcH: number,
  req: { width?: number; height?: number; fit: Fit; upscale: boolean },
  even: boolean,
): Geometry {
  const round = (x: number) => (even ? Math.max(2, Math.floor(Math.round(x) / 2) * 2) : Math.max(1, Math.round(x)));
  const { width: W, height: H, upscale } = req;
  let sx: number;
  let sy: number;
  let boxW: number | undefined;
  let boxH: number | undefined;
  let notEnlarged = false;
  const clamp = (s: number) => {
    if (!upscale && s > 1) {
      notEnlarged = true;
      return 1;
    }
    return s;
  };

  if (W === undefined && H === undefined) {
    sx = sy = 1;
  } else if (W === undefined || H === undefined) {
    // One side given: the other follows the aspect ratio, whatever the fit.
    sx = sy = clamp(W !== undefined ? W / srcW : H! / srcH);
  } else {
    const fx = W / srcW;
    const fy = H / srcH;
    switch (req.fit) {
      case 'fill':
        sx = clamp(fx);
        sy = clamp(fy);
        break;
      case 'inside':
        sx = sy = clamp(Math.min(fx, fy));
        break;
      case 'outside':
        sx = sy = clamp(Math.max(fx, fy));
        break;
      case 'cover':
        sx = sy = clamp(Math.max(fx, fy));
        boxW = W;
        boxH = H;
        break;
      case 'contain':
        sx = sy = clamp(Math.min(fx, fy));
        boxW = W;
        boxH = H;
        break;
    }
  }
  const scaleW = round(srcW * sx);
  const scaleH = round(srcH * sy);
  let outW = scaleW;
  let outH = scaleH;
  if (req.fit === 'cover' && boxW !== undefined && boxH !== undefined) {
    outW = Math.min(scaleW, round(boxW));
    outH = Math.min(scaleH, round(boxH));
  } else if (req.fit === 'contain' && boxW !== undefined && boxH !== undefined) {
    outW = Math.max(scaleW, round(boxW));
    outH = Math.max(scaleH, round(boxH));
  }
  return { scaleW, scaleH, outW, outH, notEnlarged };
}
