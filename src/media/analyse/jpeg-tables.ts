// JPEG's quantisation and transform constants, shared by the camera fingerprint (which reads a
// file's tables) and the JPEG compatibility test of the steganalysis (which reads them back from
// decoded pixels).

/** ITU T.81 Annex K.1, natural order: the tables of libjpeg (IJG) and most of its descendants. */
export const IJG_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51,
  87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101,
  72, 92, 95, 98, 112, 100, 103, 99,
];
export const IJG_CHROMA = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99,
  99, 99, 99, ...new Array<number>(32).fill(99),
];

/** The libjpeg quality -> percentage scaling (jpeg_quality_scaling, integer arithmetic). */
function qualityScale(q: number): number {
  return q < 50 ? Math.floor(5000 / q) : 200 - 2 * q;
}

/** A base table scaled for quality q the way libjpeg does (jpeg_add_quant_table). */
export function scaledTable(base: readonly number[], q: number, baseline = true): number[] {
  const scale = qualityScale(q);
  return base.map((b) => Math.min(baseline ? 255 : 32767, Math.max(1, Math.floor((b * scale + 50) / 100))));
}

/** Orthonormal 8-point DCT-II basis (the JPEG FDCT scaling): DCT_BASIS[u * 8 + x]. */
export const DCT_BASIS = new Float64Array(64);
for (let u = 0; u < 8; u++) {
  for (let x = 0; x < 8; x++) DCT_BASIS[u * 8 + x] = (u === 0 ? Math.SQRT1_2 : 1) * 0.5 * Math.cos(((2 * x + 1) * u * Math.PI) / 16);
}
