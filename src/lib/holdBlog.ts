/**
 * What background writers of a blog's objects run their work through. With several nodes it
 * holds the blog's lease (publish/jobs/blogLeases.ts); on one node there is nothing to hold.
 */
export type HoldBlog = <T>(blog: string, work: () => Promise<T>) => Promise<T>;

export const holdNothing: HoldBlog = (_blog, work) => work();
