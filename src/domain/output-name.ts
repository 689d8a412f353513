// The name a result file is downloaded under: the input's stem with the output's extension.

/** "holiday.HEIC" + "jpg" -> "holiday.jpg"; a second "holiday.jpg" becomes "holiday-2.jpg". */
export function outputName(name: string, extension: string, used: Set<string>): string {
  const stem = name.replace(/\.[^./\\]{1,10}$/, '') || 'file';
  let candidate = `${stem}.${extension}`;
  for (let k = 2; used.has(candidate.toLowerCase()); k++) candidate = `${stem}-${k}.${extension}`;
  used.add(candidate.toLowerCase());
  return candidate;
}
