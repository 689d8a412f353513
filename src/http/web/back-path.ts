/** A path of this site to send a person back to: one leading slash (not `//host` nor `/\host`), printable ASCII, short. */
export function isSamePath(back: string): boolean {
  return back.length <= 2048 && /^\/(?![/\\])[\x21-\x7e]*$/.test(back);
}
