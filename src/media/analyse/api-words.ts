// The API's own words that analyse findings use (option names and values, "null"). Written once
// here so that the web pages can put the words of their forms in their place
// (src/http/web/views/form-words.ts) while the API's findings stay exactly as they are.
export const API_WORDS = {
  redactFaces: 'convert with redact ["faces"]',
  redactText: 'convert with redact ["text"]',
  facesOff: '(face_detection is false)',
  textOff: '(text_detection is false)',
  countNull: 'count is null, not zero',
  countNoAnswer: 'count is null (no answer, not zero)',
} as const;

export type ApiWord = keyof typeof API_WORDS;
