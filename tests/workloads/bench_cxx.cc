// C++ benchmark workload without frame pointers: std::sort with a lambda,
// std::map, virtual calls and std::function, so stacks run through
// templates, libstdc++ and inlined code. Fixed work per run.
// usage: bench_cxx [units]   (default 10; prints elapsed_ns to stderr)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

volatile unsigned long sink;

struct Shape {
	virtual ~Shape() = default;
	virtual double area(int n) const = 0;
};

struct Square : Shape {
	double s;
	explicit Square(double v) : s(v) {}
	__attribute__((noinline)) double area(int n) const override
	{
		double a = 0;
		for (int i = 0; i < n; i++)
			a += s * s + i;
		return a;
	}
};

struct Circle : Shape {
	double r;
	explicit Circle(double v) : r(v) {}
	__attribute__((noinline)) double area(int n) const override
	{
		double a = 0;
		for (int i = 0; i < n; i++)
			a += 3.14159 * r * r - i;
		return a;
	}
};

__attribute__((noinline)) void sort_records(std::vector<std::string> &v)
{
	std::sort(v.begin(), v.end(), [](const std::string &a, const std::string &b) {
		sink += a.size();
		return a < b;
	});
}

__attribute__((noinline)) unsigned long map_work(int n)
{
	std::map<unsigned long, std::string> m;
	unsigned long x = 88172645463325252ul, sum = 0;
	for (int i = 0; i < n; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		m[x % 100000] = std::to_string(x);
	}
	for (const auto &kv : m)
		sum += kv.first + kv.second.size();
	return sum;
}

__attribute__((noinline)) double shapes_work(const std::vector<std::unique_ptr<Shape>> &shapes)
{
	std::function<double(const Shape &)> f = [](const Shape &s) { return s.area(400); };
	double t = 0;
	for (const auto &s : shapes)
		t += f(*s);
	return t;
}

template <int N> __attribute__((noinline)) unsigned long deep(unsigned long v)
{
	return deep<N - 1>(v * 31 + N) + 1;
}
template <> __attribute__((noinline)) unsigned long deep<0>(unsigned long v)
{
	unsigned long s = v;
	for (int i = 0; i < 300000; i++)
		s += static_cast<unsigned long>(i) * i ^ (s >> 3);
	return s;
}

} // namespace

int main(int argc, char **argv)
{
	long units = argc > 1 ? std::atol(argv[1]) : 10;
	auto start = std::chrono::steady_clock::now();
	std::vector<std::unique_ptr<Shape>> shapes;
	for (int i = 0; i < 200; i++) {
		if (i % 2)
			shapes.push_back(std::make_unique<Square>(i));
		else
			shapes.push_back(std::make_unique<Circle>(i));
	}
	for (long u = 0; u < units; u++) {
		std::vector<std::string> v;
		for (int i = 0; i < 4000; i++)
			v.push_back(std::to_string((i * 2654435761u) % 1000003));
		sort_records(v);
		sink += map_work(4000);
		sink += static_cast<unsigned long>(shapes_work(shapes));
		sink += deep<40>(static_cast<unsigned long>(u));
	}
	auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
			  std::chrono::steady_clock::now() - start).count();
	std::fprintf(stderr, "elapsed_ns=%lld\n", static_cast<long long>(ns));
	std::printf("%lu\n", static_cast<unsigned long>(sink & 1));
	return 0;
}
