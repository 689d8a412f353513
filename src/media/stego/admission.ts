// Hide and reveal ask for their memory from the probe they make anyway: refused over the
// per-job cap (media/memory.ts), else admitted under the instance's budget, before any pixel
// is decoded.
import { SHARP_DECODES } from '../decode.ts';
import type { MediaLimits } from '../limits.ts';
import { refuseOverMemory, stegoNeed } from '../memory.ts';
import type { Probe } from '../probe.ts';

export async function admitStego(action: 'hide' | 'reveal', p: Probe, ctx: { limits: MediaLimits; admit?: (bytes: number) => Promise<void> }): Promise<void> {
  const need = stegoNeed(action, p.kind === 'video' ? 'video' : 'image', p.width * p.height, !SHARP_DECODES.has(p.format));
  refuseOverMemory(need, ctx.limits);
  await ctx.admit?.(need.bytes);
}
