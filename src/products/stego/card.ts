import { STEGO_IMAGE_FORMATS } from '../../media/stego/image.ts';
import { STEGO_VIDEO_FORMATS } from '../../media/stego/video.ts';
import { FOREIGN_TOOLS, FOREIGN_TOOL_NAMES } from '../../media/stego/foreign.ts';
import type { ProductCard } from '../card.ts';
import { STEGO_DOWNLOAD, stegoResults } from './results.ts';

/** Hide and reveal share one set of paths; the session's type says which one a job is. */
const rest = (type: 'hide' | 'reveal') => ({
  session: `POST /api/session {"type":"${type}"}`,
  start: 'POST /api/job',
  poll: 'GET /api/job/{upload_uid}?wait=30',
  results: 'GET /api/job/{upload_uid}/results',
  download: `GET ${STEGO_DOWNLOAD}/{asset_id}`,
});

export const hideCard: ProductCard = {
  product: 'hide',
  does: 'encrypts files under a passphrase and hides them losslessly in a cover image or video',
  tool: {
    name: 'start_hide_job',
    title: 'Start hiding files',
    description:
      'Encrypts the step-1 secret file(s) of a hide session under the passphrase and hides them losslessly in the step-2 cover. A secret that does not fit is refused now, with capacity_bytes. Then poll get_job_status.',
  },
  sessionPath: '/api/session',
  rest: rest('hide'),
  results: stegoResults,
  capabilities: () => ({ output_formats: { image_cover: STEGO_IMAGE_FORMATS, video_cover: STEGO_VIDEO_FORMATS } }),
};

export const revealCard: ProductCard = {
  product: 'reveal',
  does: 'recovers the files hidden in a file with the passphrase, under their original names',
  tool: {
    name: 'start_reveal_job',
    title: 'Start revealing files',
    description:
      'Recovers the files hidden in the step-1 file of a reveal session with the passphrase: files hidden here, and files hidden by steghide (JPEG, BMP), outguess (JPEG) or stegosuite (PNG, BMP). Then poll get_job_status; the results say which tool hid them (hidden_with).',
  },
  sessionPath: '/api/session',
  rest: rest('reveal'),
  results: stegoResults,
  // what other tools hid is read too, by their own programs (media/stego/foreign.ts)
  capabilities: () => ({ also_reads: Object.fromEntries(FOREIGN_TOOL_NAMES.map((t) => [t, Object.entries(FOREIGN_TOOLS).flatMap(([f, by]) => (by.includes(t) ? [f] : []))])) }),
};
