import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="main narrow" id="main">
      <h1>Not found</h1>
      <p>
        There is no such page. <Link href="/">Back to the fleet</Link>.
      </p>
    </main>
  );
}
