/** A value for an error message: quoted, one line, short (it came from a payload or a setting). */
export function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
}
