import { FITS, IMAGE_TARGETS, MAX_DIMENSION, VIDEO_TARGETS, parseConvertOptions } from '../../media/convert/options.ts';
import type { ProductCard } from '../card.ts';
import { CONVERT_DOWNLOAD, convertResults } from './results.ts';

/** The formats with a lossless mode, each probed through the options' own parser. */
const losslessIn = (key: 'image_format' | 'video_format', formats: readonly string[]) =>
  formats.filter((f) => {
    try {
      parseConvertOptions({ [key]: f, lossless: true });
      return true;
    } catch {
      return false;
    }
  });

export const convertCard: ProductCard = {
  product: 'convert',
  does: 'converts images and videos between formats, with quality and resize controls; metadata is stripped',
  tool: {
    name: 'start_convert_job',
    title: 'Start a conversion',
    description:
      'Converts every step-1 file of a convert session. Give image_format for images or video_format for videos; options are checked at once (an unknown format or a result over the limits is an error now, not later). Then poll get_job_status.',
  },
  sessionPath: '/api/convert/session',
  rest: {
    session: 'POST /api/convert/session',
    start: 'POST /api/convert/job',
    poll: 'GET /api/convert/job/{upload_uid}?wait=30',
    results: 'GET /api/convert/job/{upload_uid}/results',
    download: `GET ${CONVERT_DOWNLOAD}/{asset_id}`,
  },
  results: convertResults,
  capabilities: () => ({
    image_formats: IMAGE_TARGETS,
    video_formats: VIDEO_TARGETS,
    lossless_formats: [...losslessIn('image_format', IMAGE_TARGETS), ...losslessIn('video_format', VIDEO_TARGETS)],
    fits: FITS,
    default_fit: 'inside',
    quality: { min: 1, max: 100 },
    max_dimension: MAX_DIMENSION,
  }),
};
