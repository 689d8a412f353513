import type { ProductCard } from '../card.ts';
import { ANALYSE_ASSET } from './results.ts';

export const analyseCard: ProductCard = {
  product: 'analyse',
  does: 'inspects media for manipulation, AI generation, hidden content, C2PA provenance, camera fingerprint and privacy exposure; graded A-F per file',
  tool: {
    name: 'start_analyse_job',
    title: 'Start an analysis',
    description: 'Analyses every step-1 file of an analyse session (manipulation, hidden content, provenance, privacy; graded A-F). Then poll get_job_status and read get_analyse_result.',
  },
  sessionPath: '/api/analyse/session',
  rest: {
    session: 'POST /api/analyse/session',
    start: 'POST /api/analyse/job',
    poll: 'GET /api/analyse/job/{upload_uid}?wait=30',
    results: 'GET /api/analyse/result/{job_uid}',
    download: `GET ${ANALYSE_ASSET}/{asset_id}`,
  },
};
