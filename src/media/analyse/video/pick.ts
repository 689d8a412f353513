// Which frames of a video are sampled for the still-image checks: its keyframes (evenly picked,
// half the budget at most) and uniform samples, in time order. Pure, so the same choice can be
// made on the packets before decoding (a guess) and on the decoded frames after (the answer).

/** Frames sampled when OBSCURA_ANALYSE_VIDEO_FRAMES is not set. */
export const DEFAULT_VIDEO_FRAMES = 12;

export interface Pickable {
  t: number;
  key: boolean;
}

/** Keyframes (evenly picked, half the budget at most) and uniform samples, in time order. */
export function pickTimes<F extends Pickable>(frames: F[], duration: number, budget: number): (F | Pickable)[] {
  const usable = frames.filter((f) => Number.isFinite(f.t));
  const keys = usable.filter((f) => f.key);
  const nk = Math.min(keys.length, Math.ceil(budget / 2));
  const picked: (F | Pickable)[] = [];
  for (let i = 0; i < nk; i++) picked.push(keys[Math.floor((i * keys.length) / nk)]);
  const end = usable.length ? usable[usable.length - 1].t : duration;
  const start = usable.length ? usable[0].t : 0;
  for (let i = 0; picked.length < budget && i < budget; i++) {
    const t = start + ((i + 0.5) * (end - start)) / budget;
    const near: F | Pickable = usable.length ? usable.reduce((a, b) => (Math.abs(b.t - t) < Math.abs(a.t - t) ? b : a)) : { t, key: false };
    if (!picked.some((p) => Math.abs(p.t - near.t) < 1e-6)) picked.push(near);
  }
  return picked.sort((a, b) => a.t - b.t);
}

/** The picked frames' places in `frames` (decoding order), or null when one is not a frame of it. */
export function pickedIndices<F extends Pickable>(frames: F[], picked: (F | Pickable)[]): number[] | null {
  const at = new Map<Pickable, number>(frames.map((f, i) => [f, i]));
  const out: number[] = [];
  for (const p of picked) {
    const i = at.get(p);
    if (i === undefined) return null;
    out.push(i);
  }
  return out;
}
