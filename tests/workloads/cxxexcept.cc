// C++ workload, -O2: inlined member functions, and exceptions thrown and
// caught across several frames, with a destructor that spins while the
// exception unwinds through it (so samples land inside unwinding).
// usage: cxxexcept [seconds]   (default 1)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

namespace work {

// Small members: inlined into their callers at -O2.
struct Accumulator {
	unsigned long v = 0;
	void add(unsigned long x) { v += x * x ^ (v >> 7); }
	void add_range(unsigned long n)
	{
		for (unsigned long i = 0; i < n; i++)
			add(i);
	}
};

// Runs during stack unwinding when an exception passes through.
struct Guard {
	unsigned long n;
	__attribute__((noinline)) ~Guard() { sink += spin(n); }
};

__attribute__((noinline)) unsigned long inlined_work(unsigned long n)
{
	Accumulator a;
	a.add_range(n);
	return a.v;
}

__attribute__((noinline)) void thrower(int i)
{
	sink += inlined_work(50000);
	if (i % 2)
		throw std::runtime_error("odd round " + std::to_string(i));
}

__attribute__((noinline)) void middle(int i)
{
	Guard g{ 40000 };
	std::vector<int> v(16, i);
	thrower(i);
	sink += v.size();
}

__attribute__((noinline)) unsigned long on_caught(const std::exception &e)
{
	return spin(20000 + std::string(e.what()).size());
}

__attribute__((noinline)) void round(int i)
{
	try {
		middle(i);
	} catch (const std::exception &e) {
		sink += on_caught(e);
	}
}

} // namespace work

int main(int argc, char **argv)
{
	using clock = std::chrono::steady_clock;
	double secs = argc > 1 ? std::atof(argv[1]) : 1.0;
	auto end = clock::now() + std::chrono::duration<double>(secs);
	for (int i = 0; clock::now() < end; i++)
		work::round(i);
	std::printf("%lu\n", (unsigned long)(sink & 1));
	return 0;
}
