/** The theme's own words and date format, in the page's language. */
import type { Language } from '../../domain/language.js';

export interface Labels {
  skipToContent: string;
  siteNavigation: string;
  home: string;
  feed: string;
  /** The feed's name in the navigation bar. */
  feedShort: string;
  recentPosts: string;
  noPosts: string;
  newerPosts: string;
  olderPosts: string;
  newerPost: string;
  olderPost: string;
  morePosts: string;
  /** Title of a post's table of contents. */
  contents: string;
  pagination: string;
  tags: string;
  archive: string;
  search: string;
  searchLabel: string;
  searchButton: string;
  /** `{q}`: the query. */
  searchNone: string;
  searchOne: string;
  /** `{n}`: the number of posts. */
  searchMany: string;
  searchFailed: string;
  searchMore: string;
  searchNeedsScript: string;
  searchDescription(blogName: string): string;
  advertisement: string;
  updated: string;
  notFoundTitle: string;
  notFoundText: string;
  backHome: string;
  movedTitle: string;
  movedText: string;
  readingTime(minutes: number): string;
  archiveTitle(page: number): string;
  archiveDescription(blogName: string, page: number): string;
  tagTitle(tag: string): string;
  tagArchiveTitle(tag: string, page: number): string;
  tagDescription(tag: string, blogName: string): string;
  postCount(count: number): string;
  formatDate(iso: string): string;
  tagIndexDescription(blogName: string): string;
  archiveIndexDescription(blogName: string): string;
  monthName(month: number): string;
  monthTitle(year: number, month: number): string;
  monthArchiveTitle(year: number, month: number, page: number): string;
  monthDescription(blogName: string, year: number, month: number): string;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A stored timestamp: `YYYY-MM-DDTHH:MM:SS(.sss)Z`. */
const STORED_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The calendar date of an ISO timestamp in UTC, like every timestamp Folio stores. */
function utcDate(iso: string): { year: number; month: number; day: number } {
  // Stored timestamps are UTC ("…Z"): their date is their first ten characters, read without a
  // Date (lists of thousands of posts format a date each).
  if (STORED_UTC.test(iso)) return { year: Number(iso.slice(0, 4)), month: Number(iso.slice(5, 7)), day: Number(iso.slice(8, 10)) };
  const date = new Date(iso);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

const en: Labels = {
  skipToContent: 'Skip to content',
  siteNavigation: 'Site',
  home: 'Home',
  feed: 'RSS feed',
  feedShort: 'RSS',
  recentPosts: 'Recent posts',
  noPosts: 'No posts yet.',
  newerPosts: 'Newer posts',
  olderPosts: 'Older posts',
  newerPost: 'Newer post',
  olderPost: 'Older post',
  morePosts: 'More posts',
  contents: 'Contents',
  pagination: 'Pages',
  tags: 'Tags',
  archive: 'Archive',
  search: 'Search',
  searchLabel: 'Search posts',
  searchButton: 'Search',
  searchNone: 'No posts match “{q}”.',
  searchOne: '1 post found.',
  searchMany: '{n} posts found.',
  searchFailed: 'Search is unavailable right now. Please try again.',
  searchMore: 'More results',
  searchNeedsScript: 'Search runs in your browser and needs JavaScript. You can also browse by',
  searchDescription: (blogName) => `Search the posts of ${blogName}.`,
  advertisement: 'Advertisement',
  updated: 'Updated',
  notFoundTitle: 'Page not found',
  notFoundText: 'The page you are looking for does not exist or has moved.',
  backHome: 'Go to the home page',
  movedTitle: 'This page has moved',
  movedText: 'Its new address is',
  readingTime: (minutes) => `${minutes} min read`,
  archiveTitle: (page) => `Archive, page ${page}`,
  archiveDescription: (blogName, page) => `Posts of ${blogName}, page ${page}.`,
  tagTitle: (tag) => `Posts tagged “${tag}”`,
  tagArchiveTitle: (tag, page) => `Posts tagged “${tag}”, page ${page}`,
  tagDescription: (tag, blogName) => `Posts tagged “${tag}” on ${blogName}.`,
  postCount: (count) => (count === 1 ? '1 post' : `${count} posts`),
  tagIndexDescription: (blogName) => `Every tag of ${blogName}, with its number of posts.`,
  archiveIndexDescription: (blogName) => `Every post of ${blogName}, by year and month.`,
  monthName: (month) => MONTHS[month - 1]!,
  monthTitle: (year, month) => `${MONTHS[month - 1]} ${year}`,
  monthArchiveTitle: (year, month, page) => `${MONTHS[month - 1]} ${year}, page ${page}`,
  monthDescription: (blogName, year, month) => `Posts of ${blogName} from ${MONTHS[month - 1]} ${year}.`,
  formatDate: (iso) => {
    const { year, month, day } = utcDate(iso);
    return `${MONTHS[month - 1]} ${day}, ${year}`;
  },
};

const ko: Labels = {
  skipToContent: '본문으로 건너뛰기',
  siteNavigation: '사이트',
  home: '홈',
  feed: 'RSS 피드',
  feedShort: 'RSS',
  recentPosts: '최근 글',
  noPosts: '아직 글이 없습니다.',
  newerPosts: '더 최근 글',
  olderPosts: '지난 글',
  newerPost: '다음 글',
  olderPost: '이전 글',
  morePosts: '다른 글',
  contents: '목차',
  pagination: '페이지',
  tags: '태그',
  archive: '보관함',
  search: '검색',
  searchLabel: '글 검색',
  searchButton: '검색',
  searchNone: '“{q}”에 맞는 글이 없습니다.',
  searchOne: '글 1개를 찾았습니다.',
  searchMany: '글 {n}개를 찾았습니다.',
  searchFailed: '지금은 검색할 수 없습니다. 잠시 후 다시 시도해 주세요.',
  searchMore: '결과 더 보기',
  searchNeedsScript: '검색은 브라우저에서 실행되며 자바스크립트가 필요합니다. 다음으로 둘러볼 수도 있습니다:',
  searchDescription: (blogName) => `${blogName}의 글을 검색합니다.`,
  advertisement: '광고',
  updated: '수정',
  notFoundTitle: '페이지를 찾을 수 없습니다',
  notFoundText: '찾으시는 페이지가 없거나 주소가 바뀌었습니다.',
  backHome: '첫 화면으로 가기',
  movedTitle: '페이지 주소가 바뀌었습니다',
  movedText: '새 주소:',
  readingTime: (minutes) => `${minutes}분 분량`,
  archiveTitle: (page) => `글 목록 ${page}쪽`,
  archiveDescription: (blogName, page) => `${blogName}의 글 목록 ${page}쪽입니다.`,
  tagTitle: (tag) => `‘${tag}’ 태그의 글`,
  tagArchiveTitle: (tag, page) => `‘${tag}’ 태그의 글 ${page}쪽`,
  tagDescription: (tag, blogName) => `${blogName}에서 ‘${tag}’ 태그가 붙은 글입니다.`,
  postCount: (count) => `글 ${count}개`,
  tagIndexDescription: (blogName) => `${blogName}의 모든 태그와 태그별 글 수입니다.`,
  archiveIndexDescription: (blogName) => `${blogName}의 모든 글을 연도와 달별로 모았습니다.`,
  monthName: (month) => `${month}월`,
  monthTitle: (year, month) => `${year}년 ${month}월`,
  monthArchiveTitle: (year, month, page) => `${year}년 ${month}월의 글 ${page}쪽`,
  monthDescription: (blogName, year, month) => `${blogName}의 ${year}년 ${month}월 글입니다.`,
  formatDate: (iso) => {
    const { year, month, day } = utcDate(iso);
    return `${year}년 ${month}월 ${day}일`;
  },
};

const LABELS: Record<Language, Labels> = { en, ko };

export function labelsFor(lang: Language): Labels {
  return LABELS[lang];
}

/** `og:locale` for a language. */
export function ogLocale(lang: Language): string {
  return lang === 'ko' ? 'ko_KR' : 'en_US';
}
