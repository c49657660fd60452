/** Anything that runs parameterised SQL the way pg's Pool and Client do. */
export type Queryable = {
  query<R extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    params?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
};
